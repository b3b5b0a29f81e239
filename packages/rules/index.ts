/**
 * The rules the server, payjs.js and the mobile SDK share, so all three agree: card brands and
 * checks, field validation and its messages, the API's error codes, and the test cards.
 */
export * from "./card-rules";
export * from "./codes";
export * from "./messages";
export * from "./validation";
export * from "./test-data";
export * from "./declines";
