// ESLint for the web client (make check): the recommended rules, browser globals, ES modules.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "generated/", "static/web/vendor/"] },
  js.configs.recommended,
  {
    files: ["static/web/**/*.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    files: ["static/web/sw.js"],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
];
