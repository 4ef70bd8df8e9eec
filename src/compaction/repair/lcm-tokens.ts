/**
 * lossless-claw's token estimate, reproduced from its documented weights so counts written into
 * its database agree with what it computes itself: a quarter token per Latin character, 1.5 per
 * CJK character (ideographs, kana, hangul, CJK punctuation, fullwidth forms), 2 per astral
 * symbol, rounded up over the whole text. Pure.
 */
export function lcmEstimateTokens(text: string): number {
  let quarters = 0; // whole numbers: 1 = 0.25 token
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    if (isLcmCjk(cp)) quarters += 6;
    else if (cp > 0xffff) quarters += 8;
    else quarters += 1;
  }
  return Math.ceil(quarters / 4);
}

function isLcmCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2ebef) ||
    (cp >= 0x3000 && cp <= 0x30ff) ||
    (cp >= 0xac00 && cp <= 0xd7af) ||
    (cp >= 0xff00 && cp <= 0xffef)
  );
}
