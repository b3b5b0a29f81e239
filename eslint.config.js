export { default } from "./tools/eslint/config.js";
