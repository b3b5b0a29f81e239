// Files imported `with { type: "file" }`: the default export is the file's path (inside the
// compiled binary, the path of its embedded copy).
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "*.ico" {
  const path: string;
  export default path;
}
