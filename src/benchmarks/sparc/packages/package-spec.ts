/** Package names out of install specs, and the URLs a source answers for them. */

/** `lodash@4` → `lodash`, `@scope/pkg@^1` → `@scope/pkg`. */
export function npmPackageName(spec: string): string {
  const at = spec.indexOf("@", 1);
  return at === -1 ? spec : spec.slice(0, at);
}

/** `numpy==2.1` / `Foo_Bar[extra]>=1` → PEP 503 normalised name (`numpy`, `foo-bar`). */
export function pipPackageName(spec: string): string {
  const m = /^[A-Za-z0-9_.-]+/.exec(spec);
  return (m ? m[0] : spec).toLowerCase().replace(/[-_.]+/g, "-");
}

/** Registry document URL of an npm package (scoped names keep `@` and escape `/`). */
export function npmPackageUrl(registry: string, name: string): string {
  const base = registry.endsWith("/") ? registry : registry + "/";
  return base + name.replace("/", "%2f");
}

/** PEP 503 simple-index page of a Python package. */
export function pipPackageUrl(indexUrl: string, name: string): string {
  const base = indexUrl.endsWith("/") ? indexUrl : indexUrl + "/";
  return `${base}${name}/`;
}
