import fc from 'fast-check';

const hexDigit = fc.constantFrom(...'0123456789abcdef'.split(''));

/** Ids as an index meets them: Pi's (8 lowercase hex digits, a few of them so ids repeat), near misses, and anything. */
export const idArb: fc.Arbitrary<string> = fc.oneof(
  fc.array(hexDigit, { minLength: 8, maxLength: 8 }).map((d) => d.join('')),
  fc.constantFrom('00000000', 'ffffffff', '0000000a', 'deadbeef'),
  // Near misses: upper case, 7 or 9 digits, a non-hex letter, full-width digits, a trailing space.
  fc.constantFrom('DEADBEEF', 'deadbee', 'deadbeef0', 'deadbeeg', '０１２３４５６７', 'deadbeef ', ' deadbeef', '-1234567'),
  fc.string({ maxLength: 10 }),
  fc.uuid(),
);
