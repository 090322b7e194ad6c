// Build step (npm run build): the schemas' benchmark and backend parts from the registries (src/registry-schemas/).
import { format, resolveConfig } from "prettier";
import { writeRegistrySchemas } from "../dist/registry-schemas/write-schemas.js";

const changed = await writeRegistrySchemas(async (text, path) =>
  format(text, { ...(await resolveConfig(path)), filepath: path }),
);
for (const file of changed) console.log(`schemas/${file}: written from the registries`);
