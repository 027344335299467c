import { ValidationError } from '../../errors.js';

/**
 * Reading request date-times. The schemas accept what RFC 3339 (ajv-formats `date-time`) accepts:
 * `t`/`T` or a space between date and time, `z`/`Z` or an offset `±hh`, `±hhmm`, `±hh:mm`, any
 * number of fraction digits, and a leap second (`…T23:59:60Z`). `Date.parse` reads only some of
 * these, so every request date goes through here; a leap second reads as the last millisecond of
 * its minute (`…T23:59:59.999Z`).
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt\s](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** Milliseconds since the epoch of an RFC 3339 date-time; a ValidationError naming `field` otherwise. */
export function parseDateTime(value: string, field = 'date'): number {
  const m = RFC3339.exec(value);
  if (!m) throw new ValidationError(`${field} must be a valid date-time`);
  const [, year, month, day, hour, minute, second, fraction, , sign, offsetHours, offsetMinutes] = m;
  const leap = Number(second) >= 60;
  const ms = leap ? 999 : Number((fraction ?? '').padEnd(3, '0').slice(0, 3));
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), leap ? 59 : Number(second), ms);
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes ?? 0)) : 0;
  const time = date.getTime() - offset * 60_000;
  if (!Number.isFinite(time)) throw new ValidationError(`${field} must be a valid date-time`);
  return time;
}

/** The canonical stored form (`YYYY-MM-DDTHH:mm:ss.sssZ`) of an RFC 3339 date-time. */
export function toIsoDateTime(value: string, field = 'date'): string {
  return new Date(parseDateTime(value, field)).toISOString();
}
