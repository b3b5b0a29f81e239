/**
 * Import rules checked in `npm test` (dependency-cruiser; TypeScript is read through @swc/core,
 * because dependency-cruiser cannot load TypeScript 7). The layers of docs/architecture.md point
 * one way: entry → http → services → domain and storage → lib. The packages (the browser library,
 * the mobile SDK, the webhook verifier, the testing toolkit) import only the shared rules and
 * themselves. SQL lives in src/storage only: no other module may import a database driver.
 */
const LAYERS = {
  lib: ["src/lib/", "packages/rules/"],
  domain: ["src/domain/", "src/lib/", "packages/rules/"],
  storage: ["src/storage/", "src/domain/", "src/lib/", "packages/rules/"],
  services: ["src/services/", "src/storage/", "src/domain/", "src/lib/", "packages/rules/", "packages/webhooks/"],
  http: ["src/http/", "src/services/", "src/domain/", "src/lib/", "packages/"],
};

const only = (allowed) => `^(${allowed.map((dir) => dir.replace(/[/.]/g, "\\$&")).join("|")})`;

const layerRules = Object.entries(LAYERS).map(([layer, allowed]) => ({
  name: `layer-${layer}`,
  severity: "error",
  comment: `src/${layer} may import only: ${allowed.join(", ")} (and node/npm modules).`,
  from: { path: `^src/${layer}/` },
  to: { path: "^(src|packages)/", pathNot: only(allowed) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Imports point one way; a cycle means two modules are really one, or one is in the wrong layer.",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: "rules-stand-alone",
      severity: "error",
      comment: "packages/rules is imported by the server, payjs.js and the mobile SDK: it imports nothing else.",
      from: { path: "^packages/rules/" },
      to: { path: "^(src|packages)/", pathNot: "^packages/rules/" },
    },
    {
      name: "client-packages-stand-alone",
      severity: "error",
      comment:
        "payjs.js runs in integrators' pages, the mobile SDK in their apps, the verifier and the toolkit in their servers and tests: they import the shared rules and each other's types, never server code.",
      from: { path: "^packages/(payjs|mobile|webhooks|testing)/" },
      to: {
        pathNot: "^(packages/|node_modules/|examples/)",
        dependencyTypesNot: ["core", "npm", "npm-dev", "npm-no-pkg", "unknown"],
      },
    },
    {
      name: "sql-only-in-storage",
      severity: "error",
      comment: "Every SQL statement lives in src/storage: no other module may use a database driver.",
      from: { pathNot: "^(src/storage/|tests/|scripts/)" },
      to: { path: "^(bun:sqlite|bun)$", dependencyTypes: ["core", "unknown", "npm-no-pkg", "undetermined"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: {
      path: "^(node_modules|dist|packages/testing/dist|packages/mobile/dist|test-artifacts|tests/openapi-client)",
    },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
