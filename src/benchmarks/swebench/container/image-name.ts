/**
 * The image an instance is evaluated in. The official harness names its
 * per-instance images `sweb.eval.<arch>.<instance id, lower-cased>:<tag>` and,
 * under a namespace (Docker Hub `swebench`), replaces `__` by `_1776_`
 * (Docker repository names may not contain `__`):
 * `swebench/sweb.eval.x86_64.django_1776_django-11099:latest`.
 * A template (config `swebench_image_template`) and a per-instance override
 * map (config `swebench_images`) select other images.
 */
import { arch } from "node:os";

/** Default template: the official images on Docker Hub (pull them first; no registry is contacted here). */
export const DEFAULT_IMAGE_TEMPLATE = "swebench/sweb.eval.{arch}.{instance_key}:latest";

/** The official instance key: lower-cased id with `__` as `_1776_`. */
export function officialInstanceKey(instanceId: string): string {
  return instanceId.toLowerCase().replace(/__/g, "_1776_");
}

/** The official architecture name of this host (x86_64 or arm64). */
export function officialArch(nodeArch: string = arch()): string {
  return nodeArch === "arm64" ? "arm64" : "x86_64";
}

export interface ImageChoice {
  template?: string | undefined;
  overrides?: Readonly<Record<string, string>> | undefined;
  arch?: string;
}

/** The image for `instanceId`: the override if any, else the template filled in. */
export function imageFor(instanceId: string, choice: ImageChoice = {}): string {
  const override = choice.overrides?.[instanceId];
  if (override) return override;
  const values: Record<string, string> = {
    instance_key: officialInstanceKey(instanceId),
    instance_id: instanceId,
    arch: choice.arch ?? officialArch(),
  };
  return (choice.template ?? DEFAULT_IMAGE_TEMPLATE).replace(
    /\{(instance_key|instance_id|arch)\}/g,
    (_, k: string) => values[k]!,
  );
}
