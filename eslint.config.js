// ESLint flat config: typescript-eslint's type-checked rules over src/ and tests/,
// formatting left to Prettier (`npm run format`). Run by `npm run lint` and `npm run check`.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "results/", "output/", "records/", ".cache/"] },
  {
    files: ["src/**/*.ts", "tests/**/*.ts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Control characters are matched on purpose: ANSI escapes in terminal output, pytest's separators.
      "no-control-regex": "off",
      // A leading underscore marks a deliberately unused name (an interface's parameter, a dropped rest key).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // A function longer than this is split, or carries an eslint-disable comment saying why it is not.
    files: ["src/**/*.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // Tests read parsed JSON (responses, bundles, events) as `any` on purpose and implement async
    // interfaces with synchronous fakes; the unsafe-any and require-await rules would only add casts there.
    files: ["tests/**/*.ts"],
    rules: {
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
    },
  },
);
