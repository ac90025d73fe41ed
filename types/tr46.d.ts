/** tr46 ships no types; this is the part tinytrack uses. */
declare module 'tr46' {
  export interface ToAsciiOptions {
    checkHyphens?: boolean;
    checkBidi?: boolean;
    checkJoiners?: boolean;
    useSTD3ASCIIRules?: boolean;
    transitionalProcessing?: boolean;
    verifyDNSLength?: boolean;
    ignoreInvalidPunycode?: boolean;
  }
  export function toASCII(domain: string, options?: ToAsciiOptions): string | null;
  const tr46: { toASCII: typeof toASCII };
  export default tr46;
}
