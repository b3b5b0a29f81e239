/**
 * Import rules checked in `npm test` (dependency-cruiser; TypeScript is read through @swc/core,
 * because dependency-cruiser cannot load TypeScript 7). Two rules hold today: no module import
 * cycles, and the browser library and the mobile SDK stay packages that import nothing of the
 * server. The layer rules (entry → http → services → domain/storage) come with the layer move.
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Imports point one way; a cycle means two modules are really one, or one is in the wrong layer.",
      from: {},
      to: { circular: true },
    },
    {
      name: "client-packages-stand-alone",
      severity: "error",
      comment:
        "payjs.js runs in integrators' pages and the mobile SDK in their apps: they may import each other's shared rules, never server code.",
      from: { path: "^(payjs|mobile)/" },
      to: { pathNot: "^(payjs|mobile)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|testing/dist|mobile/dist|test-artifacts|tests/openapi-client)" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
