/**
 * Hold a hand-written TS type to its JSON Schema: the test lists the type's
 * keys in an object literal checked by the compiler (`satisfies KeyFlags<T>`:
 * every declared key, nothing else, `true` when required), and compares that
 * list with the schema's `properties` and `required`.
 */

/** The declared keys of T, without its index signature. */
export type DeclaredKeys<T> = keyof {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K];
};

/** The declared keys of T that are optional. */
type OptionalKeys<T> = {
  [K in DeclaredKeys<T>]-?: object extends Pick<T, K> ? K : never;
}[DeclaredKeys<T>];

/** One flag per declared key of T: `true` for a required key, `false` for an optional one. */
export type KeyFlags<T> = { [K in DeclaredKeys<T>]: K extends OptionalKeys<T> ? false : true };

/** `properties` keys and `required` list of an object schema, sorted, in the shape of {@link keysOf}. */
export function schemaKeys(schema: unknown): { properties: string[]; required: string[] } {
  const s = schema as { properties?: Record<string, unknown>; required?: string[] };
  return { properties: Object.keys(s.properties ?? {}).sort(), required: [...(s.required ?? [])].sort() };
}

/** The keys of a {@link KeyFlags} literal, sorted, in the shape of {@link schemaKeys}. */
export function keysOf(flags: Record<string, boolean>): { properties: string[]; required: string[] } {
  return {
    properties: Object.keys(flags).sort(),
    required: Object.keys(flags)
      .filter((k) => flags[k])
      .sort(),
  };
}

/**
 * {@link schemaKeys} of schemas combined with `allOf` (a benchmark's row: the
 * common row plus its own definition): the union of their keys and of their
 * required lists.
 */
export function allOfSchemaKeys(...schemas: unknown[]): { properties: string[]; required: string[] } {
  const keys = schemas.map(schemaKeys);
  const union = (lists: string[][]): string[] => [...new Set(lists.flat())].sort();
  return { properties: union(keys.map((k) => k.properties)), required: union(keys.map((k) => k.required)) };
}
