import { describe, expect, it } from 'vitest';
import { characterPairs, indexableText, queryParts } from '../../src/store/spaceless-scripts.js';

describe('text of space-less scripts for the index', () => {
  it('has full ICU here: Intl.Segmenter cuts Japanese, Chinese and Thai into words', () => {
    const words = (locale: string, text: string) =>
      [...new Intl.Segmenter(locale, { granularity: 'word' }).segment(text)].filter((s) => s.isWordLike).map((s) => s.segment);
    expect(words('ja', '認証を追加した')).toEqual(['認証', 'を', '追加', 'した']);
    expect(words('zh', '修复了认证问题')).toEqual(['修复', '了', '认证', '问题']);
    expect(words('th', 'แก้ไขการยืนยันตัวตน')).toEqual(['แก้ไข', 'การ', 'ยืนยัน', 'ตัว', 'ตน']);
  });

  it('leaves text without those scripts exactly as it was', () => {
    for (const text of ['Checkout total ignored the discount code', 'café — naïve résumé', 'src/cart/compute-total.ts', ''])
      expect(indexableText(text)).toBe(text);
  });

  it('makes character pairs of CJK runs (the last character alone), Thai words, and splits mixed tokens', () => {
    expect(characterPairs('認証')).toEqual(['認証', '証']);
    expect(characterPairs('池')).toEqual(['池']);
    expect(indexableText('JWT認証ミドル').trim().split(/\s+/)).toEqual(['JWT', '認証', '証ミ', 'ミド', 'ドル', 'ル']);
    expect(indexableText('ยืนยันตัวตน').trim().split(/\s+/)).toEqual(['ยืนยัน', 'ตัว', 'ตน']);
    // Punctuation of the script separates runs rather than joining words.
    expect(indexableText('遅い。速い').trim().split(/\s+/)).toEqual(['遅い', 'い', '。', '速い', 'い']);
  });

  it('turns a query word into plain parts and phrases of units; a sentence also word by word, particles left out', () => {
    expect(queryParts('parser')).toEqual([{ kind: 'plain', text: 'parser' }]);
    expect(queryParts('JWT認証')).toEqual([
      { kind: 'plain', text: 'JWT' },
      { kind: 'run', text: '認証', phrases: [{ text: '認証', units: ['認証'], single: false }] },
    ]);
    expect(queryParts('池')).toEqual([{ kind: 'run', text: '池', phrases: [{ text: '池', units: ['池'], single: true }] }]);
    const sentence = queryParts('認証を追加した');
    expect(sentence).toHaveLength(1);
    const phrases = sentence[0]!.kind === 'run' ? sentence[0]!.phrases.map((p) => p.text) : [];
    expect(phrases).toEqual(['認証を追加した', '認証', '追加', 'した']);
  });
});
