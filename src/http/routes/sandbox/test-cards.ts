import { Elysia, t } from "elysia";
import { TEST_BANK, TEST_CARDS } from "../../../../packages/rules/test-data";
import type { AppDeps } from "../../deps";
import { ErrorBody } from "../../../domain/schemas/records";
import { loopbackOnly } from "./control";

const TestCard = t.Object({ number: t.String(), brand: t.String(), outcome: t.String(), description: t.String() });

/** `/_sandbox/test-cards`: the test cards and bank account, with what each does. */
export function testCardRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/_sandbox", tags: ["Sandbox control"] })
    .use(loopbackOnly(deps))
    .get("/test-cards", () => ({ cards: [...TEST_CARDS], bank: { ...TEST_BANK } }), {
      response: {
        200: t.Object({
          cards: t.Array(TestCard),
          bank: t.Object({ routing: t.String(), approvingAccount: t.String(), description: t.String() }),
        }),
        403: ErrorBody,
      },
      detail: { summary: "The test cards and bank account, with what each does" },
    });
}
