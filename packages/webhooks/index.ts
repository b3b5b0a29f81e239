/**
 * The webhook signature scheme of PaySandbox: what a receiver needs to check a delivery
 * (`verifyPaySandboxSignature`) and what the sandbox signs with (`signatureHeader`).
 * @example import { verifyPaySandboxSignature } from "paysandbox/webhooks";
 */
export { verifyPaySandboxSignature } from "./verify";
export {
  HEADER_DELIVERY_ID,
  HEADER_EVENT,
  HEADER_SIGNATURE,
  signatureHeader,
  signedPayload,
  type SignedDelivery,
} from "./signing";
