// Sinhala documents typed before Unicode took hold, many school papers among them, use fonts of
// the FM and DL families (FMAbhaya, FMBindumathi, DL-Manel...). They draw Sinhala letters in the
// places of Latin ones, so the PDF's text is Latin letters ("Y%S ,xld" for ශ්‍රී ලංකා) that no
// search in Sinhala finds. No well-kept mapping to Unicode exists for all of them (the converters
// on PyPI are young, one-maintainer packages), so such a file is refused, naming the font.

/** FM or DL, then the name's capitalised rest; a subset prefix (ABCDEF+) may come first. */
const LEGACY_SINHALA = /^(?:[A-Z]{6}\+)?((?:FM|DL)[-_]?[A-Z][A-Za-z]*(?:[-_,][A-Za-z]+)*)$/;

/** The first of a PDF's font names that belongs to a legacy (non-Unicode) Sinhala family. */
export function legacySinhalaFont(fontNames: string[]): string | undefined {
  for (const name of fontNames) {
    const match = LEGACY_SINHALA.exec(name);
    if (match) return match[1];
  }
  return undefined;
}

/** Why a file in a legacy font is refused; completes "<file> is not a readable PDF: ". */
export function legacyFontProblem(font: string): string {
  return (
    `its text is in ${font}, a legacy Sinhala font that stores Sinhala letters as Latin ones, so it cannot be searched. ` +
    'Save it again with a Unicode Sinhala font (for example Noto Sans Sinhala or Iskoola Pota) and upload it again'
  );
}
