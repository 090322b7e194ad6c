// Build step (npm run build): the schema validators as standalone modules in dist/validators/ (src/util/validator-generate.ts).
import { generateValidators } from "../dist/util/validator-generate.js";
import { generatedValidatorsDir } from "../dist/util/schema.js";

const written = generateValidators(generatedValidatorsDir);
if (process.env.VERBOSE) for (const p of written) console.log(p);
