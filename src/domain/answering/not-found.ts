import type { Language } from '../../generated/contract-values.js';

// Said plainly, in the question's language, when no passage is relevant (then there are no citations).
const NOTHING_FOUND: Record<Language, string> = {
  english: 'No relevant passages were found in the indexed curriculum documents for this question.',
  sinhala: 'මෙම ප්‍රශ්නයට අදාළ කොටස් සුචිගත පාඨමාලා ලේඛනවල හමු නොවීය.',
  tamil: 'இந்தக் கேள்விக்குத் தொடர்புடைய பகுதிகள் பாடத்திட்ட ஆவணங்களில் கிடைக்கவில்லை.',
};

export function nothingFound(language: Language): string {
  return NOTHING_FOUND[language];
}
