/**
 * The packages read as packages: each has its own entry point, reachable by the root package's
 * name the way an integrator's code imports it.
 */
import { describe, expect, test } from "bun:test";

describe("package entry points", () => {
  test("paysandbox/webhooks verifies what it signs, and refuses a changed body", async () => {
    const { signatureHeader, verifyPaySandboxSignature, HEADER_SIGNATURE } = await import("paysandbox/webhooks");
    expect(HEADER_SIGNATURE).toBe("PaySandbox-Signature");
    const now = Math.floor(Date.now() / 1000);
    const delivery = { deliveryId: "dlv_1", event: "create_customer", body: '{"id":"c1"}' };
    const header = signatureHeader("whsec_test", delivery, now);
    const headers = new Headers({
      "PaySandbox-Signature": header,
      "PaySandbox-Delivery-Id": delivery.deliveryId,
      "PaySandbox-Event-Name": delivery.event,
    });
    expect(verifyPaySandboxSignature(delivery.body, headers, "whsec_test")).toBe(true);
    expect(verifyPaySandboxSignature('{"id":"c2"}', headers, "whsec_test")).toBe(false);
  });

  test("paysandbox/rules holds the shared card rules, messages and error codes", async () => {
    const rules = await import("paysandbox/rules");
    expect(rules.detectBrand("4111111111111111")).toBe("visa");
    expect(rules.isCardNumberValid("4111111111111112")).toBe(false);
    expect(rules.API_ERROR_STATUS.validation_error).toBe(422);
  });
});
