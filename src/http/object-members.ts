/**
 * Elysia's request normalizer (exact-mirror) reshapes a value to fit a nested object schema before
 * the schema is checked: `"meta": 5` becomes `{}`, `"meta": "s"` `{"0": "s"}`, and an object whose
 * members are all optional then passes. So a body member the schema calls an object is checked
 * here first, on transform (after parsing, before validation), from the same schema: any other
 * value is a 422 naming the member, as the OpenAPI document says.
 *
 * @example
 * .post("", handler, { body: WebhookBody, transform: objectMembers(WebhookBody) })
 */
import { Kind, type TObject, type TSchema } from "@sinclair/typebox";
import { ValidationFailed } from "../domain/errors";

function isObjectSchema(schema: TSchema): boolean {
  return schema.type === "object" && schema[Kind] !== "Record";
}

/** The top-level members of `schema` that are objects, each with whether null is allowed too. */
function objectMemberNames(schema: TObject): { name: string; nullable: boolean }[] {
  const found: { name: string; nullable: boolean }[] = [];
  for (const [name, member] of Object.entries(schema.properties)) {
    const options: TSchema[] = Array.isArray(member.anyOf) ? member.anyOf : [member];
    if (!options.some(isObjectSchema)) continue;
    found.push({ name, nullable: options.some((option) => option.type === "null") });
  }
  return found;
}

/** A transform hook refusing a body whose object members (by `schema`) hold anything but an object. */
export function objectMembers(schema: TObject): (context: { body: unknown }) => void {
  const members = objectMemberNames(schema);
  return ({ body }) => {
    if (body === null || typeof body !== "object" || Array.isArray(body)) return;
    const values = body as Record<string, unknown>;
    for (const { name, nullable } of members) {
      const value = values[name];
      if (value === undefined || (value === null && nullable)) continue;
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        throw new ValidationFailed({ [name]: [`The ${name} must be an object${nullable ? " or null" : ""}.`] });
      }
    }
  };
}
