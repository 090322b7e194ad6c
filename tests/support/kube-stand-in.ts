/**
 * A stand-in Kubernetes API server on loopback for the kubernetes backend's tests, speaking the
 * requests `@kubernetes/client-node` makes (read from its source: the generated CoreV1Api and
 * NetworkingV1Api paths and query names, `Exec` and its WebSocketHandler): pods as containers of the
 * private container engine.
 *
 * Endpoints: namespaces POST, GET, DELETE; `networking.k8s.io/v1` networkpolicies POST, DELETE; pods
 * POST, GET one, GET a list by `labelSelector`, DELETE one, DELETE a collection by `labelSelector`; and
 * `GET …/pods/{name}/exec?command=…&container=…&stdin=…&stdout=…&stderr=…&tty=…` upgraded to a
 * WebSocket with the channel subprotocols (`v5.channel.k8s.io` chosen when offered): channel 0 stdin,
 * 1 stdout, 2 stderr, 3 the error channel whose one message is the final Status (exit code in
 * `details.causes`), 4 resize (ignored, no TTY), 255 the v5 close signal (`[255, 0]` ends stdin).
 * It serves HTTPS with a self-signed certificate made at start (openssl), which the kubeconfig it
 * writes trusts as `certificate-authority-data` (the client refuses plain HTTP unless TLS
 * verification is off). Every request must carry the kubeconfig's bearer token (401 Status otherwise).
 *
 * What a pod becomes: a container created over the Engine API with the pod's image and command, its
 * securityContext (runAsUser/runAsGroup as `User`, runAsNonRoot checked against the image's user as
 * the kubelet does, `capabilities.drop: [ALL]`, no-new-privileges, a read-only root), its memory and
 * CPU limits, each emptyDir as a tmpfs of its sizeLimit, and no network when a NetworkPolicy of the
 * namespace with both policy types and no rules selects it (else the engine's default network).
 * `activeDeadlineSeconds` kills the container (phase Failed, reason DeadlineExceeded). An image the
 * engine lacks is `ErrImagePull` (`ErrImageNeverPull` with pullPolicy Never): nothing is pulled.
 *
 * What it is not: a scheduler, admission (Pod Security is recorded, not enforced), RBAC, a real CNI (a
 * NetworkPolicy that allows anything is not modelled), or asynchronous deletion.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:https";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../../src/process/index.js";
import { randomBytes, randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { docker } from "../../src/sandbox/docker/docker-cli.js";
import { engineRequest, engineSocketPath, engineUpgrade } from "../../src/sandbox/docker/engine-api.js";
import { FrameDemuxer } from "../../src/sandbox/docker/exec-frames.js";

type Json = Record<string, unknown>;

/** The Engine API label on every container of one stand-in (its removal at close). */
export const STAND_IN_LABEL = "a2a-bench-k8s-stand-in";

interface StandInPod {
  manifest: Json;
  namespace: string;
  name: string;
  uid: string;
  created: string;
  containerId: string | null;
  phase: "Pending" | "Running" | "Succeeded" | "Failed";
  reason?: string;
  message?: string;
  waiting?: { reason: string; message: string };
  exitCode?: number;
  deadline?: NodeJS.Timeout;
  startedAt?: string;
  /** The network the container got: "none" when a deny-all policy selected it. */
  network: string;
}

export interface KubeStandIn {
  /** https://127.0.0.1:PORT */
  url: string;
  token: string;
  /** A kubeconfig (YAML) whose current context is this server with its token. */
  kubeconfig(namespace?: string): string;
  /** Every request, in order: method, path, query and, for exec, the subprotocols offered and chosen. */
  requests: Array<{ method: string; path: string; query: string; protocols?: string[]; chosen?: string }>;
  namespaces: Map<string, Json>;
  policies: Map<string, Json>;
  /** Live pods by `namespace/name` (gone once deleted). */
  pods: Map<string, StandInPod>;
  /** Every pod manifest received, by `namespace/name` (kept after deletion). */
  received: Map<string, Json>;
  /** Containers of this stand-in the engine still holds. */
  containers(): Promise<string[]>;
  close(): Promise<void>;
}

const JSON_TYPE = { "content-type": "application/json" };

function status(code: number, reason: string, message: string): Json {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, JSON_TYPE).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? {} : (JSON.parse(text) as Json);
}

/** `a=b,c!=d,e,!f` (the equality-based selectors; set-based ones are refused). */
export function matchesSelector(labels: Record<string, string>, selector: string | null): boolean {
  if (selector === null || selector === "") return true;
  return selector.split(",").every((term) => {
    const t = term.trim();
    let m: RegExpMatchArray | null;
    if ((m = /^([^!=]+)!=(.*)$/.exec(t))) return labels[m[1]!.trim()] !== m[2]!.trim();
    if ((m = /^([^!=]+)==?(.*)$/.exec(t))) return labels[m[1]!.trim()] === m[2]!.trim();
    if (t.startsWith("!")) return !(t.slice(1) in labels);
    if (/^[A-Za-z0-9./_-]+$/.test(t)) return t in labels;
    throw new Error(`unsupported label selector term: ${t}`);
  });
}

/** Kubernetes quantities as bytes or cores: plain numbers, Ki/Mi/Gi, m. */
function quantity(q: unknown): number | undefined {
  if (q === undefined || q === null) return undefined;
  const text = typeof q === "number" ? String(q) : typeof q === "string" ? q : "";
  const m = /^([0-9.]+)(m|Ki|Mi|Gi|Ti|k|M|G)?$/.exec(text);
  if (!m) throw new Error(`bad quantity ${JSON.stringify(q)}`);
  const n = Number(m[1]);
  const unit = { m: 1e-3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9 } as const;
  return m[2] ? n * unit[m[2] as keyof typeof unit] : n;
}

function labelsOf(o: Json): Record<string, string> {
  return ((o["metadata"] as Json | undefined)?.["labels"] as Record<string, string> | undefined) ?? {};
}

/** A deny-all policy (both types, no rules) selecting these labels. */
function deniedByPolicy(policies: Iterable<Json>, namespace: string, labels: Record<string, string>): boolean {
  for (const p of policies) {
    if ((p["metadata"] as Json)["namespace"] !== namespace) continue;
    const spec = p["spec"] as Json;
    const types = (spec["policyTypes"] as string[] | undefined) ?? [];
    const rules = [...((spec["ingress"] as unknown[]) ?? []), ...((spec["egress"] as unknown[]) ?? [])];
    const match = ((spec["podSelector"] as Json)["matchLabels"] as Record<string, string> | undefined) ?? {};
    const selected = Object.entries(match).every(([k, v]) => labels[k] === v);
    if (selected && types.includes("Ingress") && types.includes("Egress") && rules.length === 0) return true;
  }
  return false;
}

/** A key and a self-signed certificate for 127.0.0.1, valid one day. */
async function selfSignedCertificate(): Promise<{ key: Buffer; cert: Buffer }> {
  const dir = await mkdtemp(join(tmpdir(), "kube-stand-in-"));
  try {
    const r = await runCommand(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "key.pem",
        "-out",
        "cert.pem",
        "-days",
        "1",
        "-subj",
        "/CN=kube-stand-in",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ],
      { cwd: dir, timeoutMs: 120_000 },
    );
    if (r.exitCode !== 0) throw new Error(`openssl failed: ${r.stderr}`);
    return { key: await readFile(join(dir, "key.pem")), cert: await readFile(join(dir, "cert.pem")) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function startKubeStandIn(o: { env: NodeJS.ProcessEnv; port?: number }): Promise<KubeStandIn> {
  const socketPath = engineSocketPath(o.env);
  if (socketPath === null) throw new Error("the stand-in needs DOCKER_HOST=unix://…");
  const id = randomBytes(6).toString("hex");
  const token = randomBytes(16).toString("hex");
  const requests: KubeStandIn["requests"] = [];
  const namespaces = new Map<string, Json>();
  const policies = new Map<string, Json>();
  const pods = new Map<string, StandInPod>();
  const received = new Map<string, Json>();
  const wss = new WebSocketServer({
    noServer: true,
    // The API server picks the newest channel protocol the client offers.
    handleProtocols: (offered) =>
      ["v5.channel.k8s.io", "v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"].find((p) =>
        offered.has(p),
      ) ?? false,
  });

  const engine = (method: "GET" | "POST", path: string, body?: unknown) =>
    engineRequest(socketPath, method, path, body);

  async function removeContainer(pod: StandInPod): Promise<void> {
    if (pod.deadline) clearTimeout(pod.deadline);
    if (pod.containerId) await docker(["rm", "-f", "-v", pod.containerId], { env: o.env });
  }

  /** The container's state into the pod's phase (a container that exited ends the pod). */
  async function refresh(pod: StandInPod): Promise<void> {
    if (pod.phase !== "Running" || pod.containerId === null) return;
    const a = await engine("GET", `/containers/${pod.containerId}/json`);
    const state = (a.body as Json | null)?.["State"] as Json | undefined;
    if (a.status === 200 && state?.["Running"] === true) return;
    const code = Number(state?.["ExitCode"] ?? 137);
    pod.exitCode = code;
    pod.phase = code === 0 ? "Succeeded" : "Failed";
  }

  async function startPod(pod: StandInPod): Promise<void> {
    const spec = pod.manifest["spec"] as Json;
    const c = (spec["containers"] as Json[])[0]!;
    const psc = (spec["securityContext"] as Json | undefined) ?? {};
    const csc = (c["securityContext"] as Json | undefined) ?? {};
    const image = String(c["image"]);
    const img = await engine("GET", `/images/${encodeURIComponent(image)}/json`);
    if (img.status !== 200) {
      const never = c["imagePullPolicy"] === "Never";
      pod.waiting = {
        reason: never ? "ErrImageNeverPull" : "ErrImagePull",
        message: `image ${image} is not present on the node (the stand-in pulls nothing)`,
      };
      return;
    }
    const uid = (csc["runAsUser"] ?? psc["runAsUser"]) as number | undefined;
    const gid = (csc["runAsGroup"] ?? psc["runAsGroup"]) as number | undefined;
    const nonRoot = (csc["runAsNonRoot"] ?? psc["runAsNonRoot"]) === true;
    const imageUser = (((img.body as Json)["Config"] as Json | undefined)?.["User"] as string | undefined) ?? "";
    if (nonRoot && (uid === 0 || (uid === undefined && ["", "0", "root"].includes(imageUser.split(":")[0]!)))) {
      pod.waiting = {
        reason: "CreateContainerConfigError",
        message: "container has runAsNonRoot and image will run as root",
      };
      return;
    }
    const limits = ((c["resources"] as Json | undefined)?.["limits"] as Json | undefined) ?? {};
    const tmpfs: Record<string, string> = {};
    const volumes = new Map(((spec["volumes"] as Json[] | undefined) ?? []).map((v) => [String(v["name"]), v]));
    for (const m of (c["volumeMounts"] as Json[] | undefined) ?? []) {
      const v = volumes.get(String(m["name"]));
      const empty = v?.["emptyDir"] as Json | undefined;
      if (!empty) throw new Error(`volume ${String(m["name"])}: the stand-in models emptyDir only`);
      const size = quantity(empty["sizeLimit"]);
      tmpfs[String(m["mountPath"])] = `rw,exec,mode=1777${size ? `,size=${Math.floor(size)}` : ""}`;
    }
    const caps = (csc["capabilities"] as Json | undefined)?.["drop"] as string[] | undefined;
    pod.network = deniedByPolicy(policies.values(), pod.namespace, labelsOf(pod.manifest)) ? "none" : "bridge";
    const command = (c["command"] as string[] | undefined) ?? [];
    const created = await engine("POST", `/containers/create?name=k8s-${id}-${pod.namespace}-${pod.name}`, {
      Image: image,
      ...(command.length > 0
        ? { Entrypoint: [command[0]], Cmd: [...command.slice(1), ...((c["args"] as string[]) ?? [])] }
        : {}),
      ...(uid !== undefined ? { User: `${uid}:${gid ?? uid}` } : {}),
      // The working directory is the exec's (below): the engine would create it under a tmpfs mount and
      // lose the mount's mode, where a kubelet's emptyDir stays 0777.
      Labels: {
        [STAND_IN_LABEL]: id,
        "io.kubernetes.pod.name": pod.name,
        "io.kubernetes.pod.namespace": pod.namespace,
      },
      HostConfig: {
        NetworkMode: pod.network,
        CapDrop: caps?.includes("ALL") ? ["ALL"] : [],
        SecurityOpt: csc["allowPrivilegeEscalation"] === false ? ["no-new-privileges"] : [],
        ReadonlyRootfs: csc["readOnlyRootFilesystem"] === true,
        Privileged: false,
        ...(limits["memory"] !== undefined ? { Memory: Math.floor(quantity(limits["memory"])!) } : {}),
        ...(limits["cpu"] !== undefined ? { NanoCpus: Math.floor(quantity(limits["cpu"])! * 1e9) } : {}),
        Tmpfs: tmpfs,
      },
    });
    const cid = (created.body as Json | null)?.["Id"];
    if (created.status !== 201 || typeof cid !== "string") {
      pod.waiting = { reason: "CreateContainerError", message: created.message };
      return;
    }
    pod.containerId = cid;
    if (!pods.has(`${pod.namespace}/${pod.name}`)) return void (await removeContainer(pod));
    const started = await engine("POST", `/containers/${cid}/start`);
    if (started.status !== 204) {
      pod.waiting = { reason: "RunContainerError", message: started.message };
      return;
    }
    pod.phase = "Running";
    pod.startedAt = new Date().toISOString();
    const deadline = spec["activeDeadlineSeconds"];
    if (typeof deadline === "number")
      pod.deadline = setTimeout(() => {
        if (pod.phase !== "Running") return;
        pod.phase = "Failed";
        pod.reason = "DeadlineExceeded";
        pod.message = `Pod was active on the node longer than the specified deadline`;
        void docker(["kill", cid], { env: o.env });
      }, deadline * 1000);
  }

  function podJson(p: StandInPod): Json {
    const meta = p.manifest["metadata"] as Json;
    const state = p.waiting
      ? { waiting: p.waiting }
      : p.phase === "Running"
        ? { running: { startedAt: p.startedAt } }
        : p.phase === "Pending"
          ? { waiting: { reason: "ContainerCreating" } }
          : {
              terminated: {
                exitCode: p.exitCode ?? 137,
                reason: p.reason ?? (p.exitCode === 0 ? "Completed" : "Error"),
              },
            };
    return {
      ...p.manifest,
      apiVersion: "v1",
      kind: "Pod",
      metadata: { ...meta, namespace: p.namespace, uid: p.uid, creationTimestamp: p.created, resourceVersion: "1" },
      status: {
        phase: p.phase,
        ...(p.reason ? { reason: p.reason, message: p.message } : {}),
        containerStatuses: [
          {
            name: String(((p.manifest["spec"] as Json)["containers"] as Json[])[0]!["name"]),
            image: String(((p.manifest["spec"] as Json)["containers"] as Json[])[0]!["image"]),
            imageID: "",
            ready: p.phase === "Running",
            restartCount: 0,
            state,
          },
        ],
      },
    };
  }

  async function deletePod(p: StandInPod): Promise<Json> {
    pods.delete(`${p.namespace}/${p.name}`);
    await removeContainer(p);
    return podJson(p);
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const m = req.method ?? "GET";
    const path = url.pathname;
    let g: RegExpMatchArray | null;
    if (path === "/api/v1/namespaces" && m === "POST") {
      const ns = await readBody(req);
      const name = String((ns["metadata"] as Json)["name"]);
      if (namespaces.has(name))
        return send(res, 409, status(409, "AlreadyExists", `namespaces "${name}" already exists`));
      const stored = { ...ns, status: { phase: "Active" } };
      namespaces.set(name, stored);
      return send(res, 201, stored);
    }
    if ((g = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(path))) {
      const name = decodeURIComponent(g[1]!);
      const ns = namespaces.get(name);
      if (!ns) return send(res, 404, status(404, "NotFound", `namespaces "${name}" not found`));
      if (m === "GET") return send(res, 200, ns);
      if (m === "DELETE") {
        for (const p of [...pods.values()].filter((p) => p.namespace === name)) await deletePod(p);
        for (const [k, p] of policies) if ((p["metadata"] as Json)["namespace"] === name) policies.delete(k);
        namespaces.delete(name);
        return send(res, 200, { ...ns, status: { phase: "Terminating" } });
      }
    }
    if ((g = /^\/apis\/networking\.k8s\.io\/v1\/namespaces\/([^/]+)\/networkpolicies(?:\/([^/]+))?$/.exec(path))) {
      const ns = decodeURIComponent(g[1]!);
      if (!namespaces.has(ns)) return send(res, 404, status(404, "NotFound", `namespaces "${ns}" not found`));
      if (m === "POST" && g[2] === undefined) {
        const body = await readBody(req);
        const name = String((body["metadata"] as Json)["name"]);
        const stored = { ...body, metadata: { ...(body["metadata"] as Json), namespace: ns } };
        policies.set(`${ns}/${name}`, stored);
        return send(res, 201, stored);
      }
      if (m === "DELETE" && g[2] !== undefined) {
        const key = `${ns}/${decodeURIComponent(g[2])}`;
        if (!policies.delete(key))
          return send(res, 404, status(404, "NotFound", `networkpolicies "${g[2]}" not found`));
        return send(res, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" });
      }
    }
    if ((g = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+))?$/.exec(path))) {
      const ns = decodeURIComponent(g[1]!);
      const name = g[2] === undefined ? undefined : decodeURIComponent(g[2]);
      if (!namespaces.has(ns)) return send(res, 404, status(404, "NotFound", `namespaces "${ns}" not found`));
      if (name === undefined && m === "POST") {
        const manifest = await readBody(req);
        const podName = String((manifest["metadata"] as Json)["name"]);
        const key = `${ns}/${podName}`;
        if (pods.has(key)) return send(res, 409, status(409, "AlreadyExists", `pods "${podName}" already exists`));
        received.set(key, manifest);
        const pod: StandInPod = {
          manifest,
          namespace: ns,
          name: podName,
          uid: randomUUID(),
          created: new Date().toISOString(),
          containerId: null,
          phase: "Pending",
          network: "",
        };
        pods.set(key, pod);
        // As a kubelet would: the answer comes at once, the container later.
        void startPod(pod).catch((e: Error) => (pod.waiting = { reason: "CreateContainerError", message: e.message }));
        return send(res, 201, podJson(pod));
      }
      if (name === undefined && (m === "GET" || m === "DELETE")) {
        const selector = url.searchParams.get("labelSelector");
        const chosen = [...pods.values()].filter(
          (p) => p.namespace === ns && matchesSelector(labelsOf(p.manifest), selector),
        );
        const items = [];
        for (const p of chosen) {
          if (m === "DELETE") items.push(await deletePod(p));
          else {
            await refresh(p);
            items.push(podJson(p));
          }
        }
        return send(res, 200, { kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "1" }, items });
      }
      const pod = name === undefined ? undefined : pods.get(`${ns}/${name}`);
      if (!pod) return send(res, 404, status(404, "NotFound", `pods "${name}" not found`));
      if (m === "GET") {
        await refresh(pod);
        return send(res, 200, podJson(pod));
      }
      if (m === "DELETE") return send(res, 200, await deletePod(pod));
    }
    return send(res, 404, status(404, "NotFound", `the stand-in does not serve ${m} ${path}`));
  }

  const authorized = (req: IncomingMessage) => req.headers["authorization"] === `Bearer ${token}`;

  const tls = await selfSignedCertificate();
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    requests.push({ method: req.method ?? "GET", path: url.pathname, query: url.search });
    if (!authorized(req)) return send(res, 401, status(401, "Unauthorized", "Unauthorized"));
    route(req, res, url).catch((e: Error) => send(res, 500, status(500, "InternalError", e.message)));
  });

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const offered = String(req.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const entry: KubeStandIn["requests"][number] = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.search,
      protocols: offered,
    };
    requests.push(entry);
    const refuse = (code: number, body: Json) => {
      socket.end(
        `HTTP/1.1 ${code} ${String(body["reason"])}\r\ncontent-type: application/json\r\n\r\n${JSON.stringify(body)}`,
      );
    };
    if (!authorized(req)) return refuse(401, status(401, "Unauthorized", "Unauthorized"));
    const g = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/.exec(url.pathname);
    if (!g || req.method !== "GET") return refuse(404, status(404, "NotFound", `no upgrade at ${url.pathname}`));
    const pod = pods.get(`${decodeURIComponent(g[1]!)}/${decodeURIComponent(g[2]!)}`);
    if (!pod) return refuse(404, status(404, "NotFound", `pods "${g[2]}" not found`));
    const q = url.searchParams;
    const container = String(((pod.manifest["spec"] as Json)["containers"] as Json[])[0]!["name"]);
    if (q.get("container") !== null && q.get("container") !== container)
      return refuse(400, status(400, "BadRequest", `container ${q.get("container")} is not valid for pod ${pod.name}`));
    if (q.get("tty") === "true") return refuse(400, status(400, "BadRequest", "the stand-in serves no TTY"));
    const command = q.getAll("command");
    if (command.length === 0) return refuse(400, status(400, "BadRequest", "you must specify at least 1 command"));
    if (pod.phase !== "Running" || pod.containerId === null)
      return refuse(400, status(400, "BadRequest", `pod ${pod.name} is not running (${pod.phase})`));
    wss.handleUpgrade(req, socket, head, (ws) => {
      entry.chosen = ws.protocol;
      const workingDir =
        (((pod.manifest["spec"] as Json)["containers"] as Json[])[0]!["workingDir"] as string) || undefined;
      serveExec(ws, pod.containerId!, workingDir, command, {
        stdin: q.get("stdin") === "true",
        stdout: q.get("stdout") === "true",
        stderr: q.get("stderr") === "true",
      }).catch((e: Error) => {
        // A failure of the stand-in itself: the stream ends with an InternalError, never hangs.
        if (ws.readyState === ws.OPEN)
          ws.send(
            Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify(status(500, "InternalError", e.message)))]),
          );
        ws.close(1011);
      });
    });
  });

  async function serveExec(
    ws: WebSocket,
    cid: string,
    workingDir: string | undefined,
    command: string[],
    want: { stdin: boolean; stdout: boolean; stderr: boolean },
  ) {
    const v5 = ws.protocol === "v5.channel.k8s.io";
    // The client sends stdin as soon as the stream is open: what arrives before the engine's exec runs waits.
    const early: Buffer[] = [];
    let stdinEnded = false;
    let engineSocket: Duplex | null = null;
    let clientGone = false;
    ws.on("message", (data: Buffer) => {
      const channel = data[0];
      if (channel === 0 && want.stdin) {
        if (engineSocket) engineSocket.write(data.subarray(1));
        else early.push(data.subarray(1));
      } else if (channel === 255 && v5 && data[1] === 0) {
        // v5's close signal: [255, channel]; stdin's ends the command's input.
        stdinEnded = true;
        engineSocket?.end();
      }
    });
    // Before v5, the client's only way to end stdin is to close the stream: then the command is left.
    ws.on("close", () => {
      clientGone = true;
      engineSocket?.destroy();
    });
    const finish = (s: Json) => {
      if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify(s))]));
      ws.close(1000);
    };
    const failure = (message: string) => ({
      metadata: {},
      status: "Failure",
      message,
      reason: "InternalError",
      code: 500,
    });
    const created = await engine("POST", `/containers/${cid}/exec`, {
      AttachStdin: want.stdin,
      AttachStdout: want.stdout,
      AttachStderr: want.stderr,
      Tty: false,
      Cmd: command,
      ...(workingDir ? { WorkingDir: workingDir } : {}),
    });
    const execId = (created.body as Json | null)?.["Id"];
    if (created.status !== 201 || typeof execId !== "string") return finish(failure(created.message));
    const started = await engineUpgrade(socketPath!, `/exec/${execId}/start`, { Detach: false, Tty: false });
    if (!("socket" in started)) return finish(failure(started.message));
    const { socket, head } = started;
    const demux = new FrameDemuxer((stream, bytes) => {
      if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([stream === "stderr" ? 2 : 1]), bytes]));
    });
    engineSocket = socket;
    for (const chunk of early) socket.write(chunk);
    if (stdinEnded) socket.end();
    if (clientGone) socket.destroy();
    const done = new Promise<void>((resolve) => {
      socket.on("data", (c: Buffer) => demux.push(c));
      socket.on("close", () => resolve());
      socket.on("error", () => undefined);
    });
    if (head.length > 0) demux.push(head);
    socket.resume();
    await done;
    for (let i = 0; i < 50; i++) {
      const inspected = await engine("GET", `/exec/${execId}/json`);
      if (inspected.status !== 200) return finish(failure(`exec inspect: ${inspected.message}`));
      const st = inspected.body as Json;
      if (st["Running"] === false && typeof st["ExitCode"] === "number") {
        const code = st["ExitCode"];
        if (code === 0) return finish({ metadata: {}, status: "Success" });
        return finish({
          metadata: {},
          status: "Failure",
          message: `command terminated with non-zero exit code: error executing command [${command.join(" ")}], exit code ${code}`,
          reason: "NonZeroExitCode",
          details: { causes: [{ reason: "ExitCode", message: String(code) }] },
        });
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    return finish(failure("the command's exit code never came"));
  }

  await new Promise<void>((resolve) => server.listen(o.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const url = `https://127.0.0.1:${port}`;
  return {
    url,
    token,
    kubeconfig: (namespace?: string) =>
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: stand-in",
        "  cluster:",
        `    server: ${url}`,
        `    certificate-authority-data: ${tls.cert.toString("base64")}`,
        "users:",
        "- name: tester",
        "  user:",
        `    token: ${token}`,
        "contexts:",
        "- name: stand-in",
        "  context:",
        "    cluster: stand-in",
        "    user: tester",
        ...(namespace ? [`    namespace: ${namespace}`] : []),
        "current-context: stand-in",
        "",
      ].join("\n"),
    requests,
    namespaces,
    policies,
    pods,
    received,
    containers: async () => {
      const r = await docker(["ps", "-aq", "--filter", `label=${STAND_IN_LABEL}=${id}`], { env: o.env });
      return r.stdout.split("\n").filter(Boolean);
    },
    close: async () => {
      for (const p of [...pods.values()]) await deletePod(p);
      for (const c of await docker(["ps", "-aq", "--filter", `label=${STAND_IN_LABEL}=${id}`], { env: o.env }).then(
        (r) => r.stdout.split("\n").filter(Boolean),
      ))
        await docker(["rm", "-f", "-v", c], { env: o.env });
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
