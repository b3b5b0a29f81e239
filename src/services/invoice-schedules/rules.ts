/**
 * An invoice schedule's rule: an iCalendar RRULE (RFC 5545), parsed and stepped by the `rrule`
 * library (its parser, expansion and words), never by hand. The sandbox takes the frequencies a
 * bill has (DAILY to YEARLY), times in UTC, and checks that the rule ever occurs.
 */
import { Frequency, RRule, type Options } from "rrule";
import { formatTimestamp } from "../../domain/time";
import { LATEST_CLOCK_MS } from "../clock";

const RULE_PARTS =
  "DAILY takes no BY part, WEEKLY takes BYDAY, MONTHLY BYMONTHDAY or BYDAY (2MO, -1FR), YEARLY BYMONTH with BYMONTHDAY or BYDAY.";

/** The refusal messages of the schedule routes (tests compare with these constants). */
export const SCHEDULE_MESSAGES = {
  ruleUnreadable: (detail: string) => `The rule is not an iCalendar RRULE (${detail}).`,
  ruleFrequency: "The rule needs FREQ=DAILY, WEEKLY, MONTHLY or YEARLY.",
  ruleTimeZone: "The rule's times are UTC: give DTSTART and UNTIL as YYYYMMDDTHHMMSSZ, without TZID.",
  ruleInterval: "The rule's INTERVAL must be a whole number from 1 to 1000.",
  ruleEndsBeforeStart: "The rule ends (UNTIL) before it starts (DTSTART).",
  ruleNeverOccurs: "The rule has no occurrence from now on: nothing would ever be invoiced.",
  customerDeleted: "The customer was deleted: a schedule needs a live customer.",
  customerOrPaymentMethod: "Give a customer_id, a payment_method_id, or both.",
  paymentMethodUnknown: "The selected payment_method_id is invalid.",
  paymentMethodDeleted: "The payment method was deleted.",
  paymentMethodOtherCustomer: "The payment method belongs to another customer than the schedule's.",
  scheduleDeleted: "The schedule was deleted.",
  rulePart: (part: string) => `The sandbox does not run rules with ${part}: ${RULE_PARTS}`,
  ruleCombination: (freq: string) => `The sandbox does not run these rule parts with FREQ=${freq}: ${RULE_PARTS}`,
  ruleDayOfMonth: (day: number) =>
    `The rule's BYMONTHDAY=${day} falls in none of the months it steps through: use BYMONTHDAY=-1 for the last day of every month.`,
} as const;

const FREQUENCIES = new Set<Frequency>([Frequency.DAILY, Frequency.WEEKLY, Frequency.MONTHLY, Frequency.YEARLY]);
/** Occurrences a record lists ahead. */
const FUTURE_OCCURRENCES = 5;

/** A rule the sandbox runs: the text stored (with its DTSTART) and the library's rule. */
export interface ParsedRule {
  text: string;
  rrule: RRule;
}

/** `20250703T140000Z` of a time (whole seconds, UTC): how an RRULE writes DTSTART and UNTIL. */
function icalTime(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/**
 * Parses a rule as the real service writes it (`FREQ=MONTHLY;INTERVAL=1;DTSTART=20250703T140000Z`;
 * an `RRULE:` prefix and DTSTART on its own line are taken too). A rule without DTSTART starts at
 * `now` (whole seconds), written into the stored text. Answers the rule, or the message of why not.
 */
export function parseRule(input: string, now: Date): ParsedRule | { error: string } {
  const text = input.trim().replace(/^RRULE:/i, "");
  if (/TZID/i.test(text)) return { error: SCHEDULE_MESSAGES.ruleTimeZone };
  let options: Partial<Options>;
  try {
    options = RRule.parseString(text);
  } catch (error) {
    return { error: SCHEDULE_MESSAGES.ruleUnreadable((error as Error).message) };
  }
  if (options.freq === undefined || !FREQUENCIES.has(options.freq)) return { error: SCHEDULE_MESSAGES.ruleFrequency };
  const interval = options.interval ?? 1;
  if (!Number.isInteger(interval) || interval < 1 || interval > 1000) return { error: SCHEDULE_MESSAGES.ruleInterval };
  if (options.tzid) return { error: SCHEDULE_MESSAGES.ruleTimeZone };
  const dtstart = options.dtstart ?? new Date(Math.floor(now.getTime() / 1000) * 1000);
  const unsupported = unsupportedPart(options, interval, dtstart);
  if (unsupported) return { error: unsupported };
  if (options.until && options.until < dtstart) return { error: SCHEDULE_MESSAGES.ruleEndsBeforeStart };
  const stored = options.dtstart ? text : `${text.replace(/;+$/, "")};DTSTART=${icalTime(dtstart)}`;
  let rrule: RRule;
  try {
    rrule = new RRule({ ...options, dtstart });
  } catch (error) {
    return { error: SCHEDULE_MESSAGES.ruleUnreadable((error as Error).message) };
  }
  if (!firstBetween(rrule, now, true)) return { error: SCHEDULE_MESSAGES.ruleNeverOccurs };
  return { text: stored, rrule };
}

const list = <T>(value: T | T[] | null | undefined): T[] =>
  value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
/** Days a month has at most, February counted at 28: a rule on the 29th of February alone is refused. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Why the sandbox will not run a rule, or null. `rrule` steps a rule period by period until a date
 * matches, to the year 9999: a rule that can never match (`FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30`)
 * takes it 50 s to give up (measured). So the sandbox takes the rule parts recurring bills use, in
 * combinations it can see will match: every period of a DAILY, WEEKLY or ordinal-BYDAY rule has a
 * match, and a BYMONTHDAY must fit one of the months the rule steps through.
 */
function unsupportedPart(options: Partial<Options>, interval: number, dtstart: Date): string | null {
  const { freq } = options;
  const has = (part: keyof Options) => list(options[part] as unknown).length > 0;
  for (const part of ["bysetpos", "byyearday", "byweekno", "byhour", "byminute", "bysecond", "byeaster"] as const) {
    if (has(part)) return SCHEDULE_MESSAGES.rulePart(part.toUpperCase());
  }
  const days = list(options.bymonthday);
  const weekdays = list(options.byweekday) as { n?: number }[];
  const ordinal = weekdays.some((day) => typeof day === "object" && day.n);
  const allowed =
    freq === Frequency.DAILY
      ? !has("bymonth") && days.length === 0 && weekdays.length === 0
      : freq === Frequency.WEEKLY
        ? !has("bymonth") && days.length === 0 && !ordinal
        : freq === Frequency.MONTHLY
          ? !has("bymonth") && !(days.length > 0 && weekdays.length > 0)
          : !(days.length > 0 && weekdays.length > 0) && (weekdays.length === 0 || has("bymonth"));
  if (!allowed) return SCHEDULE_MESSAGES.ruleCombination(Frequency[freq!]);
  if (days.length === 0) return null;
  // The months the rule steps through: every month given (YEARLY), or those INTERVAL reaches (MONTHLY).
  const months =
    freq === Frequency.YEARLY
      ? has("bymonth")
        ? list(options.bymonth).map((month) => month - 1)
        : [dtstart.getUTCMonth()]
      : Array.from({ length: 12 }, (_, k) => (dtstart.getUTCMonth() + k * interval) % 12);
  const fits = days.some((day) => months.some((month) => day !== 0 && Math.abs(day) <= MONTH_DAYS[month]!));
  return fits ? null : SCHEDULE_MESSAGES.ruleDayOfMonth(days[0]!);
}

/** A stored rule (it parsed when it was stored). */
export function storedRule(text: string): RRule {
  const options = RRule.parseString(text);
  return new RRule({ ...options, dtstart: options.dtstart ?? new Date(0) });
}

/**
 * The first occurrence after `from` (at it too when `inclusive`), searched no further than the
 * latest sandbox clock: a rule that never matches (`BYMONTH=2;BYMONTHDAY=30`) ends the search
 * there instead of stepping day by day to the year 9999 (50 s for a DAILY one, measured).
 */
function firstBetween(rule: RRule, from: Date, inclusive: boolean): Date | null {
  let found: Date | null = null;
  rule.between(from, new Date(LATEST_CLOCK_MS), inclusive, (date) => {
    found = date;
    return false;
  });
  return found;
}

/** The first occurrence at or after `from`, as a timestamp, or null when the rule has ended. */
export function occurrenceFrom(rule: RRule, from: Date): string | null {
  const next = firstBetween(rule, from, true);
  return next ? formatTimestamp(next) : null;
}

/** The occurrence after `at` (strictly), as a timestamp, or null when `at` was the last. */
export function occurrenceAfter(rule: RRule, at: Date): string | null {
  const next = firstBetween(rule, at, false);
  return next ? formatTimestamp(next) : null;
}

/** What a record says of its rule: words, end, COUNT, and the next few occurrences from `from`. */
export function describeRule(rule: RRule, from: Date | null) {
  const future: string[] = [];
  if (from) {
    rule.between(from, new Date(LATEST_CLOCK_MS), true, (date, index) => {
      if (index >= FUTURE_OCCURRENCES) return false;
      future.push(formatTimestamp(date));
      return true;
    });
  }
  return {
    rule_text: rule.toText(),
    end_at: rule.options.until ? formatTimestamp(rule.options.until) : null,
    max: rule.options.count ?? null,
    future_occurrences: future,
  };
}
