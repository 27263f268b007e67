/** The i-th Luhn-valid card number of a series the sandbox treats as an ordinary success. */
export function testCard(i: number): string {
  const body = `4${String(100_000_000_000_00 + i).slice(-14)}`;
  let sum = 0;
  for (let k = 0; k < body.length; k++) {
    let digit = Number(body[body.length - 1 - k]);
    if (k % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}
