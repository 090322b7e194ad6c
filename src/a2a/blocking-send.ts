/**
 * Which executions serve a blocking `message/send`. Such a caller sees only
 * the task as it ends (A2A `message/send` with `blocking`, the default: the
 * server answers once the task is terminal or interrupted), never the events
 * that led there, and cannot name the task before the answer arrives. An executor that finishes at once
 * may then publish the final task as ONE event: every event costs the SDK a
 * task-store load and save, a mapping to a stream response and a copy of the
 * whole task (for push notifications), so four events cost about 1.5× one
 * (row 3 of BENCHMARKS.md). Streams and non-blocking sends still get every
 * event. Protocol logic only; no transport here.
 */
import type { SendMessageRequest, Message, Task } from "@a2a-js/sdk";
import { DefaultRequestHandler, type RequestContext, type ServerCallContext } from "@a2a-js/sdk/server";

/** Call contexts of blocking sends; the SDK hands the same object to the executor's RequestContext. */
const blockingCalls = new WeakSet<ServerCallContext>();

/** True when the execution answers a blocking `message/send` (its events are seen by nobody). */
export function isBlockingSend(ctx: RequestContext): boolean {
  return ctx.context !== undefined && blockingCalls.has(ctx.context);
}

/** The SDK's request handler, marking each blocking send's call context for {@link isBlockingSend}. */
export class BlockingSendAwareRequestHandler extends DefaultRequestHandler {
  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    // The 0.3 wire's `blocking: false` arrives here converted to `returnImmediately: true`.
    if (params.configuration?.returnImmediately !== true) blockingCalls.add(context);
    return super.sendMessage(params, context);
  }
}
