// ESLint: typescript-eslint's type-aware recommended rules over the TypeScript sources (bindings/, web/src/,
// test/), run in CI with --max-warnings 0 (npm run lint). Formatting is Prettier's (.prettierrc.json), not ESLint's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "docs/api/**", "assembly/**", "**/*.wasm.ts", "web/dist/**", ".tmp-*/**", "fuzz/**", "test/package/usage*.ts"] },
  {
    files: ["bindings/**/*.ts", "web/src/**/*.ts", "test/**/*.ts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // the readers match control characters on purpose (names from files are printed with them escaped)
      "no-control-regex": "off",
      // an async function that does not await yet still promises asynchrony to its callers (source interfaces)
      "@typescript-eslint/require-await": "off",
      // its fixes drop `x as unknown` before Array.isArray and similar guards, changing what TypeScript narrows;
      // noUncheckedIndexedAccess (tsconfig.json) is what keeps the `]!` assertions honest
      "@typescript-eslint/no-unnecessary-type-assertion": "off",
      // the interfaces declare their callbacks (ByteSource.read, a band's bytes) as methods that never use `this`
      "@typescript-eslint/unbound-method": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // tests read JSON documents, child outputs and deliberately wrong inputs: `any` there is the point
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/unbound-method": "off",
      // `out += chunk` of a child's Buffer output, `${shape}` of a number[] in a test's label, a failure rethrown
      // with the case's name: the idioms of the tests, not mistakes
      "@typescript-eslint/restrict-plus-operands": "off",
      "@typescript-eslint/restrict-template-expressions": "off",
      "@typescript-eslint/no-base-to-string": "off",
      "preserve-caught-error": "off",
    },
  },
);
