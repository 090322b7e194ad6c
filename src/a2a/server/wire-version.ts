/**
 * Which A2A wire version a request speaks, before the SDK routes it (the SDK
 * reads the `A2A-Version` header alone and takes a missing one for 0.3).
 * Protocol logic only; the Express adapter applies it.
 *
 * - The header, when sent.
 * - Else the `A2A-Version` request parameter (A2A 1.0.0 §3.6.1: "Clients MAY
 *   provide the `A2A-Version` as a request parameter instead of a header").
 * - Else, for a JSON-RPC call naming a 1.0 method, "1.0". §3.6.2 has agents
 *   read an empty value as 0.3, and 0.3 has no method by any 1.0 name
 *   (`SendMessage` vs `message/send`, ...): read as 0.3 such a call could only
 *   be "Method not found". Clients that send 1.0 method names without the
 *   header (the A2A TCK does) get the 1.0 answer instead; every call that is
 *   valid 0.3 is still served as 0.3.
 * - Else undefined: the SDK's 0.3 default.
 */

/** The 1.0 JSON-RPC method names (A2A 1.0 §9.4; as the SDK's 1.0 transport handler dispatches them). */
export const V1_METHODS: ReadonlySet<string> = new Set([
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
  "GetExtendedAgentCard",
]);

/** The version a header-less call naming a 1.0 method is served as. */
export const V1_VERSION = "1.0";

/** The request parameter naming the version (§3.6.1), the header's name. */
export const VERSION_PARAMETER = "A2A-Version";

/**
 * The version a request is served as, or undefined for the 0.3 default.
 * @param header the `A2A-Version` header
 * @param parameter the `A2A-Version` query parameter (only a single string counts)
 * @param method the JSON-RPC method, for JSON-RPC calls
 */
export function requestVersion(header: string | undefined, parameter: unknown, method?: unknown): string | undefined {
  if (header) return header;
  if (typeof parameter === "string" && parameter !== "") return parameter;
  return typeof method === "string" && V1_METHODS.has(method) ? V1_VERSION : undefined;
}
