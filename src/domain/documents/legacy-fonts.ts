// Sinhala and Tamil documents typed before Unicode took hold, many school papers among them, use
// fonts that draw Sinhala or Tamil letters in the places of Latin ones: FMAbhaya, DL-Manel...
// (Sinhala), Bamini, the TAM/TAB and Shree-Tam fonts (Tamil). The PDF's text is then Latin
// letters ("Y%S ,xld" for ශ්‍රී ලංකා) that no search in Sinhala or Tamil finds. No well-kept
// mapping to Unicode exists for all of them (the converters on PyPI are young, one-maintainer
// packages), so such a file is refused, naming the font.

/** A legacy font's name, and the language whose letters it hides. */
export interface LegacyFont {
  font: string;
  language: 'Sinhala' | 'Tamil';
}

// a subset prefix (ABCDEF+) may come first; a style may follow (-Bold, ,Italic)
const FAMILIES: { language: LegacyFont['language']; name: RegExp }[] = [
  // FM or DL, then the name's capitalised rest, with any version or style (FM-Abhaya2, FMAbhaya-2010, DL-Paras.)
  { language: 'Sinhala', name: /^(?:[A-Z]{6}\+)?((?:FM|DL)[-_]?[A-Z][A-Za-z0-9]*(?:[-_,.][A-Za-z0-9]*)*)$/ },
  // Bamini (the Sri Lankan typewriter layout), TAM- and TAB- (India's TAM and TAB encodings), Shree-Tam- (ISFOC)
  { language: 'Tamil', name: /^(?:[A-Z]{6}\+)?((?:Ba{1,2}mini|TA[MB]-[A-Za-z0-9]+|Shree-Tam-[A-Za-z0-9]+)(?:[-_,][A-Za-z0-9]+)*)$/ },
];

/** The first of a PDF's font names that belongs to a legacy (non-Unicode) Sinhala or Tamil family. */
export function legacyFont(fontNames: string[]): LegacyFont | undefined {
  for (const name of fontNames) {
    for (const { language, name: family } of FAMILIES) {
      const match = family.exec(name);
      if (match) return { font: match[1]!, language };
    }
  }
  return undefined;
}

const UNICODE_FONTS: Record<LegacyFont['language'], string> = {
  Sinhala: 'Noto Sans Sinhala or Iskoola Pota',
  Tamil: 'Noto Sans Tamil, Latha or Nirmala UI',
};

/** Why a file in a legacy font is refused; completes "<file> is not a readable PDF: ". */
export function legacyFontProblem({ font, language }: LegacyFont): string {
  return (
    `its text is in ${font}, a legacy ${language} font that stores ${language} letters as Latin ones, so it cannot be searched. ` +
    `Save it again with a Unicode ${language} font (for example ${UNICODE_FONTS[language]}) and upload it again`
  );
}
