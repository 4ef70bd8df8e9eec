/**
 * The numbers inside a model id, read part by part (the id split at its separators). Real ids
 * carry a version of at most two short numbers (4-5, 2.5, v1:0), sometimes a second one (a
 * preview's 05-20, a build's 001), at most one date that exists on a calendar (20251001,
 * 2024-08-06, 0613, 2411, 08-2024) and sizes (70b, 8x7b, a3b, 128k). Anything else — a phone
 * number (5551-2345), a long run of numbers, an impossible date — carries free text. Pure.
 */
const LIMITS = { versionGroups: 2, numbersPerVersion: 2, dates: 1, sizes: 2 };

type Part = { kind: 'word' } | { kind: 'version'; startsGroup: boolean } | { kind: 'size' } | { kind: 'date'; parts: number } | { kind: 'invalid' };

export function numbersAreVersionsAndDates(parts: readonly string[], vocabulary: { families: readonly string[]; words: ReadonlySet<string> }): boolean {
  let groups = 0;
  let inGroup = 0;
  let dates = 0;
  let sizes = 0;
  for (let i = 0; i < parts.length; ) {
    const part = classify(parts, i, vocabulary);
    if (part.kind === 'invalid') return false;
    if (part.kind === 'version') {
      if (part.startsGroup || inGroup === 0) {
        groups += 1;
        inGroup = 0;
      }
      inGroup += 1;
      if (groups > LIMITS.versionGroups || inGroup > LIMITS.numbersPerVersion) return false;
    } else {
      inGroup = 0;
      if (part.kind === 'date' && ++dates > LIMITS.dates) return false;
      if (part.kind === 'size' && ++sizes > LIMITS.sizes) return false;
    }
    i += part.kind === 'date' ? part.parts : 1;
  }
  return true;
}

function classify(parts: readonly string[], i: number, { families, words }: { families: readonly string[]; words: ReadonlySet<string> }): Part {
  const part = parts[i]!;
  if (words.has(part)) return { kind: 'word' };
  // A family with its version glued on (qwen3, phi4): the number opens a version.
  const glued = /^([a-z]+)(\d{1,3})$/.exec(part);
  if (glued && families.includes(glued[1]!)) return { kind: 'version', startsGroup: true };
  if (/^[vrk]\d{1,3}$/.test(part)) return { kind: 'version', startsGroup: true };
  if (/^(?:\d{1,3}[bkm]|\d{1,3}x\d{1,4}[bm]|[vrka]\d{1,3}[bm])$/.test(part)) return { kind: 'size' };
  if (/^(?:\d{1,2}o?|0\d\d)$/.test(part)) {
    const next = parts[i + 1];
    // 08-2024: month and year.
    if (/^\d\d$/.test(part) && next !== undefined && /^\d{4}$/.test(next))
      return isMonth(Number(part)) && isYear(Number(next)) ? { kind: 'date', parts: 2 } : { kind: 'invalid' };
    return { kind: 'version', startsGroup: false };
  }
  if (/^\d{8}$/.test(part))
    return isRealDate(Number(part.slice(0, 4)), Number(part.slice(4, 6)), Number(part.slice(6))) ? { kind: 'date', parts: 1 } : { kind: 'invalid' };
  if (/^\d{4}$/.test(part)) {
    const [month, day] = [parts[i + 1], parts[i + 2]];
    // 2024-08-06
    if (month !== undefined && day !== undefined && /^\d\d$/.test(month) && /^\d\d$/.test(day) && isYear(Number(part))) {
      return isRealDate(Number(part), Number(month), Number(day)) ? { kind: 'date', parts: 3 } : { kind: 'invalid' };
    }
    return isMonthDay(part) || isYearMonth(part) ? { kind: 'date', parts: 1 } : { kind: 'invalid' };
  }
  // Vocabulary was checked by the caller's pattern; what is left without a digit is a word.
  return /\d/.test(part) ? { kind: 'invalid' } : { kind: 'word' };
}

const isYear = (year: number) => year >= 2000 && year <= 2099;
const isMonth = (month: number) => month >= 1 && month <= 12;

function isRealDate(year: number, month: number, day: number): boolean {
  if (!isYear(year) || !isMonth(month) || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** 0613: a snapshot's month and day (any year, so 0229 is real). */
function isMonthDay(text: string): boolean {
  return isRealDate(2000, Number(text.slice(0, 2)), Number(text.slice(2)));
}

/** 2411: a release's year (20–39) and month, as Mistral and Qwen name them. */
function isYearMonth(text: string): boolean {
  const year = Number(text.slice(0, 2));
  return year >= 20 && year <= 39 && isMonth(Number(text.slice(2)));
}
