/**
 * The messages between an integrator's page (the parent), its card frames (sandbox origin) and
 * between the two frames. Each is a discriminated union on `type`; every message carries the
 * library tag and the PayJs instance id, so several instances on one page never mix.
 *
 * Card data never appears in a FrameToParent message: the number frame reports states, the
 * brand, and after tokenizing only the payment method's id, brand and last four.
 */
import type { ApiErrorBody } from "../rules/codes";
import type { CardFormMessage, CardFormat, CardType, FieldInputType, FieldStyle, PaymentMethod } from "./types";

export const LIBRARY = "payjs";

export type FieldName = "number" | "cvv";

export interface Tag {
  library: typeof LIBRARY;
  instance: string;
}

/** The non-card details the number frame adds to its tokenize request (pay()'s customer fields). */
export interface CardTokenizeDetails {
  person_name: string;
  card_exp: string;
  customer_id?: string;
  firstname?: string;
  lastname?: string;
  company?: string;
  email?: string;
  phone?: string;
  address_1?: string;
  address_2?: string;
  address_city?: string;
  address_state?: string;
  address_zip?: string;
  address_country?: string;
}

/** What the parent learns of a tokenized card: the stored record (brand, last four, expiry; never the number or CVV). */
export type TokenizedCard = PaymentMethod;

/** Parent → frame. Frames accept these only from window.parent and the parent's origin. */
export type ParentToFrame =
  /** setTestPan / setTestCvv: types a value; `seq` comes back in the state that reflects it. */
  | { type: "set_value"; value: string; seq: number }
  /** pay(): the number frame tokenizes its number and CVV with these details. */
  | { type: "tokenize"; request: string; idempotency_key: string; details: CardTokenizeDetails };

/** Frame → parent. The parent accepts these only from the sandbox origin and its own frames' windows. */
export type FrameToParent =
  | { type: "ready"; field: FieldName }
  /** The frame's content height in CSS pixels (the parent sizes an auto-sized frame to it). */
  | { type: "resize"; height: number }
  /** The number frame's view of the whole form; `seq` is the last set_value applied per field. */
  | { type: "state"; state: CardFormMessage; seq: Record<FieldName, number> }
  | { type: "tokenized"; request: string; payment_method: TokenizedCard }
  /** status 0: the sandbox could not be reached. */
  | { type: "tokenize_failed"; request: string; status: number; error: ApiErrorBody | null };

/** Frame ↔ frame over the instance's BroadcastChannel (same origin only). */
export type FrameToFrame =
  /** A frame started: the other one repeats its current value. */
  | { type: "sync"; from: FieldName }
  /** number → cvv: the brand decides the CVV length. */
  | { type: "brand"; card_type: CardType | null }
  /** cvv → number: the number frame needs the CVV to tokenize. */
  | { type: "cvv"; value: string; seq: number };

/** What a frame learns from its URL fragment when the parent inserts it. */
export interface FrameConfig {
  instance: string;
  field: FieldName;
  token: string;
  /** The parent page's origin: the only target of the frame's messages. */
  origin: string;
  placeholder?: string;
  type?: FieldInputType;
  /** As the integrator gave it; the frame sanitizes it (style.ts). */
  style?: FieldStyle;
  format?: CardFormat;
  /** The container has no height of its own: the frame reports its content height and is sized to it. */
  autosize?: boolean;
}

export type Tagged<T> = T & Tag;

export function tag<T extends { type: string }>(instance: string, message: T): Tagged<T> {
  return { library: LIBRARY, instance, ...message };
}

/** True for a message of this library and instance (the receiver's switch checks the type). */
export function isTagged<T extends { type: string }>(data: unknown, instance: string): data is Tagged<T> {
  if (!data || typeof data !== "object") return false;
  const message = data as Partial<Tag> & { type?: unknown };
  return message.library === LIBRARY && message.instance === instance && typeof message.type === "string";
}

/** The BroadcastChannel the two frames of one instance share. */
export const channelName = (instance: string) => `${LIBRARY}:${instance}`;

/** Frame pages, relative to the sandbox base URL. */
export const FRAME_PATHS: Record<FieldName, string> = {
  number: "/payjs/frames/number.html",
  cvv: "/payjs/frames/cvv.html",
};

export function encodeFrameConfig(config: FrameConfig): string {
  return `#${encodeURIComponent(JSON.stringify(config))}`;
}

export function decodeFrameConfig(hash: string): FrameConfig | null {
  try {
    const config = JSON.parse(decodeURIComponent(hash.replace(/^#/, ""))) as FrameConfig;
    if (typeof config.instance !== "string" || typeof config.token !== "string") return null;
    if (config.field !== "number" && config.field !== "cvv") return null;
    return config;
  } catch {
    return null;
  }
}
