import { splitMarkedText } from '../documents/pages.js';
import { detectLanguage } from '../text/normalise.js';
import { LIST_BULLET, sentenceSpans } from '../text/sentences.js';
import { asksOnly, stems, terms } from '../text/analyse.js';
import { memoised } from './memo.js';
import { nothingFound } from './not-found.js';
import type { Passage } from './passage.js';
import type { Language } from '../../generated/contract-values.js';

/**
 * An answer grows by the sentences after its best one up to this many words (a longer best
 * sentence stays alone): 35 answered as often as 40 on the held-out sets, in fewer words (30 less often).
 */
const MAX_WORDS = 35;
const MAX_SENTENCES = 3;
/** An answer grows by a sentence that takes up the words its last one ended on, up to this many words. */
const MAX_WORDS_CONTINUING = 45;
/** A sentence that points back brings the ones before it while they are this many words in all. */
const MAX_WORDS_POINTING_BACK = 60;
/** An answer takes in a sentence of its passage that has question words it lacks while it stays this many words (45 and 50 answered one SciQ question fewer). */
const MAX_WORDS_COMPLETING = 60;
/**
 * A sentence (with the ones it points back to) answers only if it has at least this share of the
 * question's content words: one word of five ("world" for "Who won the 2018 football world cup?")
 * is a passage on another subject. Measured on the shared QA sets with each question's own passage
 * left out and in (README "Answer quality"): 0.25 kept every English answer that 0 found.
 */
const MIN_COVERAGE = 0.25;
/** How much a sentence's passage covering the question counts, beside the sentence itself covering it. */
const PASSAGE_WEIGHT = 1;
/** How much a sentence having the question's consecutive words next to each other counts (all of them: this much). */
const PAIR_WEIGHT = 0.2;
/**
 * How much saying what the question asks about counts ("What is X?" and "X is ...", "X යනු
 * කුමක්ද?" and "X යනු ...", "X என்றால் என்ன?" and "X என்பது ..."): of sentences that name X alike,
 * the definition answers ("CPU එක ගැන ... ගනිමු." was quoted for "CPU යනු කුමක්ද?", being shorter).
 */
const DEFINITION_WEIGHT = 0.1;
const ASKS_WHAT = /^\s*(?:what\s+(?:is|are)\s|define\s)|(?:කුමක්ද|මොනවාද|කුමක්\s+ද|என்ன|யாது|யாவை)\s*\??\s*$/iu;
// (English "X is a/the ...", not "X is faster ..."; not Tamil என்றால், which is also "if")
const DEFINING_WORD = /\s(?:(?:is|are)\s+(?:a|an|the|called|defined|known)|means|refers\s+to|යනු|යනුවෙන්|என்பது|எனப்படுவது)\s/iu;
/**
 * How much saying "not" of one of the question's words counts when the question says "not" of
 * it ("Which materials do not conduct electricity?"): "not" is no content word, so a sentence
 * saying the opposite ("Metals conduct electricity.") matched as well and, shorter, won. Only
 * of the same word: "Why does ice not sink?" is not answered by "Ice does not conduct heat."
 */
const NEGATION_WEIGHT = 0.1;
// An English negation, a whole word, says "not" of the next two words that are not stopwords
// ("do not conduct electricity", "do not have a backbone", "cannot", "don't", "without",
// "lacks"); "non-renewable" of itself
const ENGLISH_NEGATION = /^(?:not|no|never|cannot|none|neither|nor|without|lacks?|lacking|\p{L}+n['’]t)$/iu;
const NON_WORD = /^non-\p{L}/iu;
// A Sinhala or Tamil particle of negation says "not" of the word before it ("කොඳු ඇට පෙළක්
// නැත", "ජලය රහිත", "முள்ளந்தண்டு இல்லை", "நீர் இல்லாத"), never of itself: a sentence does not
// say "not" of the question's subject for having "இல்லாத" too. Not அல்லது "or" nor அல்லவா (a question tag).
const PARTICLE_NEGATION = /^(?:නැති[\p{L}\p{M}]*|නැත|නැහැ|රහිත|இல்லை|இல்லாத[\p{L}\p{M}]*|இன்றி|வேண்டாம்|அல்ல(?!து|வா)[\p{L}\p{M}]*)$/u;
// Sinhala's නො- negates its verb ("නොකරයි", or apart: "නො කරයි") and the word before it, and
// says "not" of the verb too unless it is a light one (do, be, have: "සන්නයනය නොකරයි" is about
// සන්නයනය, not about doing). Not නොහොත් "or", නොයෙක්/නොයෙකුත් "various", නොබෝ "soon", nor names
// (නොවැම්බර්, නොබෙල්, නොර්වේ).
const SINHALA_NEGATION = /^නො(?!හොත්|යෙක්|යෙකුත්|බෝ|වැම්බර්|වෙම්බර්|බෙල්|ර්වේ)[\p{L}\p{M}]*$/u;
const SINHALA_LIGHT_VERB = /^(?:කර|කළ|කෙර|වෙ|වන|වූ|වී|ව|ඇත|ඇති|තිබ)/u;
// A Tamil verb's negative says "not" of the verb itself and the word before it ("மின்சாரத்தைக்
// கடத்தாது", "கடத்துவதில்லை", "செய்யாமல்"); not words that merely end so after one letter (மாத
// "monthly", தாது "mineral") nor மட்டுமல்லாமல் "not only"; so is a word with රහිත joined to it
const NEGATIVE_VERB = /^(?:(?![\p{L}\p{M}]*மட்டுமல்ல)[\p{L}\p{M}]{2,}(?:ா(?:து|த|தவை|தவர்|தவர்கள்|மல்|தே)|வதில்லை|வில்லை)|[\p{L}\p{M}]+රහිත)$/u;
const EDGE_PUNCTUATION = /^[^\p{L}\p{M}\p{N}]+|[^\p{L}\p{M}\p{N}]+$/gu;

/** words a definition's subject may have besides the question's ("The main function of the kidney is ...") */
const MAX_SUBJECT_EXTRA_WORDS = 2;
/**
 * Of a longer candidate, only its clause with the question's words, or this many words around
 * them, is weighed by meaning: a long sentence's vector is of all it says ("... the Olmecs ...;
 * the Maya in Yucatan; ..." for "Who lived in Yucatan?"), so a short one on another subject
 * stood closer to the question.
 */
const FOCUS_WORDS = 25;
/** What each step down the retrieval ranking, and each word of length, costs a sentence. */
const RANK_COST = 0.05;
const WORD_COST = 0.002;
// A sentence that points back early on ("It is ...", "... live in them", "ඔහුගේ ...", "அவனது ...")
// needs the one before it to make sense: pronouns and their possessives, demonstratives ("මෙය",
// "இந்த", "இந்நிகழ்வு"), "the latter". A list item's "that" only as its first word: further in it
// mostly starts a relative clause ("The cell that is selected ..."); prose brings the sentence
// before for any "that" early on, which costs a sentence at most.
const BACK_REFERENCES = [
  'it|its|this|these|those|they|them|their|he|she|his|her|him|the latter|the former(?=\\s+(?:is|was|are|were|has|had)\\s)',
  'එය|එයට|එයින්|එහි|එතැන|මෙතැන|මෙය|මෙයට|මෙයින්|මෙහි|මේවා|ඒවා|ඒවායේ|ඔහු|ඔහුගේ|ඔහුට|ඔහුව|මොහු|මොහුගේ|ඇය|ඇයගේ|ඇයට|ඇයව|ඔවුහු|ඔවුන්|ඔවුන්ගේ|ඔවුන්ට|මොවුන්|මොවුහු',
  'இது|இதன்|இதை|இதனால்|இவை|இவற்றின்|அது|அதன்|அதை|அதனால்|அவை|அவற்றின்|அவர்|அவரது|அவருடைய|அவரை|அவர்கள்|அவர்களின்|அவன்|அவனது|அவனுடைய|அவனை|அவள்|அவளது|இவர்|இவரது|இவர்கள்|இவன்|இவனது|இவள்|இந்த|அந்த|அங்கு|அங்கே|இங்கு|இங்கே|(?:இந்ந|அந்ந|இவ்வ|அவ்வ)[\\p{L}\\p{M}]*',
].join('|');
// A line that opens pointing back ("It happens mostly through ..."): under a list item, the item goes on
const OPENS_POINTING_BACK = new RegExp(`^(?:that|${BACK_REFERENCES})(?=[\\s,'’])`, 'iu');
const pointingBack = (others: string) => new RegExp(`^(?:that(?=[\\s,])|(?:\\S+\\s+){0,6}?(?:${BACK_REFERENCES}${others})(?=[\\s,'’]))`, 'iu');
const POINTS_BACK = pointingBack('|that|such(?!\\s+as\\s)');
// A list item never brings the sentence before its list with it: one that points back early on
// ("He built ...", "In 1879 he invented ...") cannot answer
const ITEM_POINTS_BACK = pointingBack('');
// Only prose answers: titles, headings and page furniture do not end with sentence punctuation
const SENTENCE_END = /[.!।෴]["'”’)\]]*$/u;
/** An unpunctuated line this long is prose cut at a passage's end, not a heading. */
const MIN_UNPUNCTUATED_WORDS = 10;
// Numbered or lettered exam items in any script: "1.", "(ii)", "b)", "(අ)", "(ஆ)", "Q3"
const SINHALA_LETTER = /[\u0D80-\u0DFF]/u;
const TAMIL_LETTER = /[\u0B80-\u0BFF]/u;
/** Text with a letter in it: not a formula, a number or punctuation alone. */
const HAS_LETTER = /\p{L}/u;
const EXAM_ITEM = /^(\(?[0-9ivx]{1,4}[.)]|\(?[a-h]\)|\([\p{L}\p{M}]{1,3}\)|Q\s?\d+)\s/iu;
// List items and Markdown headings ("## pH scale", not "#DIV/0! appears ..." nor a spreadsheet's
// "##### appears ...") are fragments, whatever punctuation they end with, and so is text with list
// items run into it ("... you will be able to: • Describe ... • List ...")
const FRAGMENT = new RegExp(`^(#{1,4}\\s|${LIST_BULLET})`, 'u');
const RUN_IN_ITEMS = /\s[•▪◦●■►]\s/u;
// A list item, whose later sentences on its line are fragments too: "- =COUNT counts numbers.
// =COUNTA counts ..." is one item, and its tail without its subject would answer for =COUNTA
const LIST_ITEM = new RegExp(`^${LIST_BULLET}`, 'u');
/**
 * The fewest words of a list item's first sentence that may answer on its own: shorter ones ("- Water.") are labels.
 * Sinhala and Tamil words carry what English says with several ("கட்டினான்": "he built"), so fewer there.
 */
const MIN_ITEM_WORDS = { english: 6, sinhala: 4, tamil: 4 } as const;
// A blank to fill in ("______", "........", "---------"): an exercise, not a statement of fact
const BLANK = /_{3,}|\.{4,}|…{2,}|-{4,}/u;
// An exercise's instruction ("Fill in the blanks with a suitable word.", "Write TRUE or FALSE for
// each statement.", "හිස්තැන් පුරවන්න", "கோடிட்ட இடங்களை நிரப்புக"): about the exercise, never an answer
const EXERCISE = /^(?:fill in|write|answer|choose|select|underline|match|complete|tick|circle|state whether)\s+(?:the|each|all|any|in|a|an|true)\b.*\b(?:blanks?|following|questions?|statements?|correct|true|false|suitable|columns?)\b|හිස්තැන්|කෙටි පිළිතුරු|கோடிட்ட\s+இடங்கள|பொருத்தமான\s+சொல்/iu;
// A glossary's entry: a term of a few words, then a colon or a dash, then its definition
const GLOSSARY_ENTRY = /^[\p{L}\p{M}][\p{L}\p{M}'’ ]{0,40}?(?::|\s[-–—])\s/u;
// A sentence that announces a list: "... ජලය සංරක්ෂණය සඳහා අපට කළ හැකි දේ:", "We can save water in these ways:"
const INTRODUCES = /:$/u;
const MIN_ANNOUNCING_WORDS = 4;
// a multiple-choice question's stem: "The gas that plants take in is:"
const STEM = /\s(?:is|are|was|were)\s*:$/iu;
// What separates a sentence from the one on the line before it (no blank line between)
const NEXT_LINE = /^[^\S\n]*\n[^\S\n]*$/u;
// A numbered line's number ("3. Dip the leaf ...", "(2) ...")
const NUMBERED = /^\(?\d{1,3}[.)]\s/u;
// A true-or-false paper's instruction ("Write TRUE or FALSE ...", "... සත්‍ය හෝ අසත්‍ය බව ලියන්න",
// "சரியா பிழையா எனக் குறிப்பிடுக"), whose numbered statements are not all true; "true or false" in prose is none
const TRUE_OR_FALSE = [
  /(?:^|\n)(?:write|state|mark|indicate|say|tick|circle|underline)\b[^\n]*\btrue\b[^\n]{0,20}\bfalse\b/iu,
  /\bTRUE\b[^\n]{0,20}\bFALSE\b|\(T\/F\)/u,
  /සත්‍ය[^\n]{0,20}අසත්‍ය[^\n]*(?:ලියන්න|දක්වන්න|යොදන්න|ලකුණු)/u,
  /சரி[^\n]{0,20}(?:பிழை|தவறு)[^\n]*(?:எழுதுக|குறிப்பிடுக|இடுக)/u,
];
// An answer's label ("Answer:", "පිළිතුර:", "விடை:"): an answer, wherever it stands
const ANSWER_LABEL = /^(?:answer|ans|පිළිතුර|விடை)\s*:/iu;
// an answer's label with the answer after it ("Answer: SELECT ...;", "Answer: =SUM(B2:B10)"; a bare "Answer:" is a label)
const LABELLED_ANSWER = new RegExp(`${ANSWER_LABEL.source}\\s*\\S`, 'iu');
/** A sentence is Sinhala or Tamil when at least this share of its letters are in that script (not an English sentence with a gloss). */
const SCRIPT_SHARE = 0.3;
/**
 * How much a heading's words count for the first sentence under it: a section's first sentence
 * often answers its title ("Changing an improper fraction into a mixed number"), but the title
 * names the whole section, whose answer to a question may come later. On the sample curriculum's
 * questions, 1 let titles outrank the sentence that answers further down ("Relative and absolute
 * references"), and 0.5 lost most answers that open their section.
 */
const HEADING_WEIGHT = 0.75;
// A question's closing mark, before any closing quote or bracket
const QUESTION_END = /\?["'”’)]*$/u;
// A caption's label before its sentence ("Figure 29.7 Vertebrata are ...")
const CAPTION_LABEL = /^(Figure|Fig\.|Table)\s+\d+(\.\d+)*[:.]?\s+(?=\p{Lu})/u;
// An exam paper's mark allocation ("[4 marks]", "(ලකුණු 2)") is furniture: neither quoted nor matched ("a set of marks")
const MARK_ALLOCATION = /\s*[[(](?:\d+\s*(?:marks?|ලකුණු|புள்ளிகள்|மதிப்பெண்கள்)|(?:ලකුණු|புள்ளிகள்|மதிப்பெண்கள்)\s*\d+)[\])]/giu;
// Verbs that only an exam question instructs with (a procedure's steps also "draw", "find",
// "வரைக" or "කරන්න"): a chunk with one on a numbered line is an exam paper
const ENGLISH_EXAM_VERBS = 'name list explain describe define state distinguish compare calculate prove identify outline discuss mention classify suggest predict determine express simplify solve';
const TAMIL_EXAM_VERBS = 'தருக எழுதுக குறிப்பிடுக விளக்குக காண்க மாற்றுக கணிக்க சுருக்குக தீர்க்க கூறுக பெயரிடுக ஒப்பிடுக விவரிக்க விவரி வரையறு வரையறுக்க கணக்கிடுக';
const EXAM_VERBS = new Set([ENGLISH_EXAM_VERBS, 'සඳහන් පැහැදිලි විස්තර ගණනය දක්වන්න සසඳන්න විසඳන්න', TAMIL_EXAM_VERBS].flatMap((list) => list.split(' ')));
// The verbs of an exam item's instruction ("ප්‍රකාශ කරන්න": state; "உதாரணங்கள் தருக": give
// examples): a numbered line with one asks, as a question does; one without is a step or an outcome
const SINHALA_TAMIL_INSTRUCTIONS = `කරන්න ලියන්න දක්වන්න දෙන්න සොයන්න විසඳන්න අඳින්න வரைக ${TAMIL_EXAM_VERBS}`;
const INSTRUCTIONS = new Set([SINHALA_TAMIL_INSTRUCTIONS, ENGLISH_EXAM_VERBS, 'find give write show draw convert label sketch'].flatMap((list) => list.split(' ')));
// Words that ask or instruct (in a question, never in its answer; Tamil's asking words are the analyser's asksOnly) and
// Sinhala and Tamil function words (the analyser removes English stopwords only): a sentence
// sharing them with the question says nothing
const NOT_CONTENT = new Set(
  [
    // asking
    'why when does ද කුමක්ද කුමක් කවුද කවුරුන්ද කොහේද කොතැනද කීයද කීය කොපමණද කොපමණ කුමන කුමනද කවදාද කවදා ඇයි කෙසේද කොහොමද මොනවාද මොකක්ද කොතරම්',
    // instructions of exam items, never in their answers
    SINHALA_TAMIL_INSTRUCTIONS,
    // Sinhala function words
    'විසින් සඳහා ලෙස ලද ලදී කරන කළ කළේ කර කරයි කරනු කිරීම කිරීමට වූ වන වී ඇති ඇත නැත වේ විය නොවේ සහ හා හෝ මෙම එම ඒ මේ එය අතර නමුත් පසු පෙර තුළ සිට',
    'දක්වා වැනි බව බවට යුතු හැකි හැකිය හැක නිසා විට ගැන පිළිබඳ මත යටතේ සමඟ සමග වෙත යනු දී වල මගින් අනුව ලබා පමණ ය යි',
    // Tamil function words
    'மற்றும் ஒரு இந்த அந்த என்று உள்ள உள்ளது உள்ளன போது மூலம் பற்றி ஆகும் இருந்து வரை என்ற போன்ற அல்லது ஆனால் இது அது என்பது ஆக கொண்ட பல மிக மேலும்',
    'இருக்கும் இருந்தது வேண்டும் முடியும் என அதன் இதன் பின் முன் உடன்',
  ].flatMap((line) => line.split(' ')),
);
// Credit for a question word that a sentence has only in another form (by its stem or a shared beginning)
const STEM_CREDIT = 0.85;
const PREFIX_CREDIT = 0.6;
/** The beginning, in grapheme clusters, that a Sinhala or Tamil word (short) or an English one (long) must share with a question word for PREFIX_CREDIT. */
const SHORT_HEAD = 3;
const LONG_HEAD = 5;
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
const LATIN_WORD = /^[a-z]+$/;

export interface Drafted {
  answer: string;
  /** Positions (in the passages given) of the passages the answer quotes, in rank order. */
  used: number[];
}

interface Word {
  term: string;
  stem: string;
  /** grapheme clusters, for matching by a shared beginning */
  clusters: string[];
  /** its first SHORT_HEAD and LONG_HEAD clusters (null when it has fewer): the shortest beginnings that `match` credits */
  shortHead: string | null;
  longHead: string | null;
}

/** A sentence of a passage as analysed once, whatever the question. */
interface AnalysedSentence {
  text: string;
  words: number;
  /** may be quoted next to another sentence: prose, not a question */
  prose: boolean;
  /** may be the sentence that answers: prose, or a question inside a paragraph ("Could a clone, a genetically exact copy, ...?") */
  answers: boolean;
  /**
   * When the sentence is the first prose of the lines under a question or a heading on its own
   * line (an exam item, a worked example's question, a section's title), or the first sentence of
   * an item of a list right under a heading or announced by a sentence ending in ":": that line's
   * (or sentence's) sentences, `from` to `to`, and how much their words count (a question's fully,
   * a heading's less). What answers it starts on the line after it, perhaps with a formula
   * ("20/100 × 450 = 90. So the answer is Rs. 90.").
   */
  under?: { from: number; to: number; weight: number };
  /**
   * When the sentence is in a list item: the position of the item's first sentence. An item is
   * quoted from its first sentence, and only with the rest of its own line after it.
   */
  item?: number;
  /**
   * On an item's first sentence: its list follows a sentence ending in ":" ("... ජලය සංරක්ෂණය
   * සඳහා අපට කළ හැකි දේ:"), whose words the item is judged with; such an item may be a phrase
   * without closing punctuation ("• වැසි ජලය ටැංකිවල එකතු කර භාවිත කිරීම").
   */
  introduced?: boolean;
  /** which paragraph of the passage it is in (paragraphs are apart by a blank line): an answer goes on within its own */
  paragraph: number;
  /** its language by its letters (sentenceLanguage: a share of them in Sinhala or Tamil makes it so) */
  language: string;
  /** its words in order */
  sequence: string[];
  /** its distinct words */
  own: Word[];
}

interface Sentence extends AnalysedSentence {
  /** per question word, how well the sentence has it (0 to 1) */
  credit: number[];
  /** the question's pairs of consecutive words that the sentence has next to each other, in order */
  pairs: Set<number>;
}

/** A sentence that may answer, with the ones before it that it points back to: sentences `first` to `last` of passage `passage`. */
export interface Candidate {
  passage: number;
  first: number;
  last: number;
  /** how well its words match the question's (higher is better) */
  score: number;
  /** its sentences, as they would be quoted */
  text: string;
}

/** The candidates of a question over its passages, best first, and how one of them is quoted. */
export interface Ranked {
  language: string;
  candidates: Candidate[];
  /** the answer that quotes `candidate`, with a sentence of its passage that has question words it lacks and the sentences after it while the answer stays short; nothing found without one */
  quote(candidate: Candidate | undefined): Drafted;
  /** the candidate's text, or of a long one its clause or FOCUS_WORDS words with the question's words (its meaning there) */
  focus(candidate: Candidate): string;
}

/**
 * Quotes the sentences that answer the question: the sentence that covers most of the question
 * (its content words, also by stem or a shared beginning, which absorbs the suffixes of Sinhala
 * and Tamil words), in the passage that covers most of it, higher-ranked and shorter ones winning
 * ties; the sentences before it when it points back to them ("It is ..."); the sentence of the
 * passage that has the most question words they lack, if any; and the ones after while the answer
 * stays short. At most three sentences, all from one passage, in its order and language: the
 * question's whenever a sentence in it answers (attachments always count). Headings, titles,
 * page furniture, exam items, exercises, list items beside other sentences and questions on their
 * own line are never quoted; a list item that is a whole sentence answers alone. It never writes
 * text of its own, apart from saying that nothing relevant was found.
 */
export function extractiveAnswer(question: string, passages: Passage[]): Drafted {
  const ranked = rankCandidates(question, passages);
  return ranked.quote(ranked.candidates[0]);
}

/** Every sentence of the passages that may answer the question (it has at least MIN_COVERAGE of its content words), best match first. */
export function rankCandidates(question: string, passages: Passage[]): Ranked {
  const language = detectLanguage(question);
  const askedTerms = terms(question).filter((t) => !NOT_CONTENT.has(t) && !asksOnly(t));
  const asked = uniqueWords(askedTerms);
  const askedPairs = consecutivePairs(askedTerms, asked);
  const coverage = (credit: number[]) => credit.reduce((sum, c) => sum + c, 0) / Math.max(1, asked.length);

  // per word of the passages, how well it stands for each question word: once per word, as the
  // same words recur across sentences and passages
  const credits = new Map<string, number[]>();
  const matchable = askedIndex(asked);
  const none = asked.map(() => 0);
  const creditsOf = (word: Word): number[] => {
    let found = credits.get(word.term);
    if (found === undefined) {
      const near = matchable(word);
      if (near.length === 0) found = none;
      else {
        found = asked.map(() => 0);
        for (const i of near) found[i] = match(asked[i]!, word);
      }
      credits.set(word.term, found);
    }
    return found;
  };
  // a sentence whose subject, before "is" or its like, is the question's words and little else
  const definesAsked = (text: string): boolean => {
    const defining = DEFINING_WORD.exec(text);
    if (!defining) return false;
    const subject = terms(text.slice(0, defining.index).replace(PARENTHESES, ' ')).map(wordOf);
    if (subject.length === 0 || subject.length > asked.length + MAX_SUBJECT_EXTRA_WORDS) return false;
    return asked.every((_, i) => subject.some((word) => creditsOf(word)[i]! >= PREFIX_CREDIT));
  };
  const asksWhat = asked.length > 0 && ASKS_WHAT.test(question);
  // the question words a negation in the question speaks of, and whether a sentence's negations speak of one of them
  const negatedAsked = [...new Set(negatedWords(question).flatMap((token) => terms(token).flatMap((term) => asked.flatMap((word, i) => (word.term === term ? [i] : [])))))];
  const negatesAsked = (text: string) =>
    negatedAsked.length > 0 && negatedWords(text).some((token) => terms(token).some((term) => negatedAsked.some((i) => creditsOf(wordOf(term))[i]! >= PREFIX_CREDIT)));
  const sentencesOf: Sentence[][] = passages.map((passage) =>
    analysedSentences(passage.text).map((sentence) => {
      const credit = asked.map(() => 0);
      for (const word of sentence.own) {
        const own = creditsOf(word);
        if (own === none) continue;
        for (let i = 0; i < credit.length; i++) if (own[i]! > credit[i]!) credit[i] = own[i]!;
      }
      return { ...sentence, credit, pairs: pairsIn(sentence.sequence, credits, askedPairs) };
    }),
  );
  // sentences in the question's language answer when any does (a bilingual paper's, whatever its
  // document's language tag); the others only when none does. An attachment's always counts.
  const candidates: Candidate[] = [];
  const otherLanguage: Candidate[] = [];
  for (const [index, passage] of passages.entries()) {
    const own = sentencesOf[index]!;
    const passageCoverage = coverage(asked.map((_, i) => Math.max(0, ...own.map((s) => s.credit[i]!))));
    for (const [position, sentence] of own.entries()) {
      if (!sentence.answers) continue;
      // a sentence that points back is judged with the ones before it, which it needs; a question
      // inside a paragraph is not: what follows it answers it, so the quote leaves room for that
      let first = position;
      let words = sentence.words;
      // (a list item is judged with the heading or question its list is under, as prose is)
      const under = sentence.item === undefined ? sentence.under : own[sentence.item]!.under;
      if (sentence.item !== undefined) {
        // a list item is quoted from its first sentence, or from its first in this sentence's
        // language (a bilingual glossary's item gives a term in both)
        first = position;
        while (first > sentence.item && own[first - 1]!.language === sentence.language) first--;
        if (!standsAlone(own[first]!.text, own[sentence.item]!.introduced === true)) continue;
        if (position - first >= MAX_SENTENCES) continue;
        words = own.slice(first, position + 1).reduce((sum, s) => sum + s.words, 0);
      } else if (under !== undefined) {
        // an answer under its question or heading is judged with that line's words, and quoted from the line after it
        first = under.to + 1;
        words = own.slice(first, position + 1).reduce((sum, s) => sum + s.words, 0);
      } else {
        while (sentence.prose && first > 0 && position - first < MAX_SENTENCES - 1 && own[first - 1]!.prose && own[first - 1]!.language === sentence.language && POINTS_BACK.test(own[first]!.text) && words + own[first - 1]!.words <= MAX_WORDS_POINTING_BACK) {
          first--;
          words += own[first]!.words;
        }
      }
      const unit = own.slice(first, position + 1);
      const above = under === undefined ? [] : own.slice(under.from, under.to + 1);
      const covered = coverage(asked.map((_, i) => Math.max(...unit.map((s) => s.credit[i]!), ...above.map((s) => under!.weight * s.credit[i]!))));
      if (covered < MIN_COVERAGE) continue;
      // the question's words in its order ("the Earth is between the Moon and the Sun") beat the same words apart
      const paired = askedPairs.length ? new Set([...above, ...unit].flatMap((s) => [...s.pairs])).size / askedPairs.length : 0;
      const definition = asksWhat && definesAsked(own[first]!.text) ? DEFINITION_WEIGHT : 0;
      const negation = unit.some((s) => negatesAsked(s.text)) ? NEGATION_WEIGHT : 0;
      const score = covered + PASSAGE_WEIGHT * passageCoverage + PAIR_WEIGHT * paired + definition + negation - RANK_COST * index - WORD_COST * words;
      const candidate = { passage: index, first, last: position, score, text: unit.map((s) => s.text).join(' ') };
      (passage.language === null || sentence.language === language ? candidates : otherLanguage).push(candidate);
    }
  }
  if (candidates.length === 0) candidates.push(...otherLanguage);
  // stable: of equal scores, the first found (higher-ranked passage, earlier sentence) stays first
  candidates.sort((a, b) => b.score - a.score);

  const quote = (best: Candidate | undefined): Drafted => {
    if (!best) return { answer: nothingFound(language), used: [] };
    const own = sentencesOf[best.passage]!;
    const quoted = new Set<number>();
    let total = 0;
    for (let k = best.first; k <= best.last; k++) {
      quoted.add(k);
      total += own[k]!.words;
    }
    // a list item is quoted alone: another sentence of the passage is about something else
    const completing = quoted.size < MAX_SENTENCES && own[best.last]!.item === undefined ? completingSentence(own, quoted, blockOf(own, best.last), total, own[best.last]!.language) : undefined;
    if (completing !== undefined) {
      quoted.add(completing);
      total += own[completing]!.words;
    }
    let last = best.last;
    // what follows a list item is the rest of its line, and only that; prose, the rest of its
    // paragraph, or the next one's first sentence when it goes on with the last ("... raw materials
    // into sugar." "The raw materials are ..."); in the answer's language
    const follows = (next: number, last: number) =>
      own[next]!.language === own[last]!.language &&
      (own[best.last]!.item === undefined ? own[next]!.prose && (own[next]!.paragraph === own[last]!.paragraph || continues(own[last]!, own[next]!)) : own[next]!.item === own[best.last]!.item);
    for (let next = best.last + 1; next < own.length && follows(next, last) && quoted.size < MAX_SENTENCES; next++) {
      if (quoted.has(next)) {
        last = next;
        continue;
      }
      if (total + own[next]!.words > (continues(own[last]!, own[next]!) ? MAX_WORDS_CONTINUING : MAX_WORDS)) break;
      quoted.add(next);
      total += own[next]!.words;
      last = next;
    }
    return { answer: [...quoted].sort((a, b) => a - b).map((k) => own[k]!.text).join(' '), used: [best.passage] };
  };
  // how much of the question the words cover, each question word once (as `coverage`)
  const tokenCredits = new Map<string, number[]>();
  const creditOfToken = (token: string): number[] => {
    let credit = tokenCredits.get(token);
    if (credit === undefined) {
      credit = asked.map(() => 0);
      for (const term of terms(token)) creditsOf(wordOf(term)).forEach((c, i) => (credit![i] = Math.max(credit![i]!, c)));
      tokenCredits.set(token, credit);
    }
    return credit;
  };
  const worthOf = (words: string[]) => {
    const credit = asked.map(() => 0);
    for (const token of words) creditOfToken(token).forEach((c, i) => (credit[i] = Math.max(credit[i]!, c)));
    return credit.reduce((sum, c) => sum + c, 0);
  };
  const focus = (candidate: Candidate): string => {
    if (candidate.text.split(/\s+/u).length <= FOCUS_WORDS) return candidate.text;
    // the clause (between semicolons: a list run on) with the most of the question, the first of equals
    let words: string[] = [];
    let best = -1;
    for (const clause of candidate.text.split(/(?<=;)\s+/u)) {
      const clauseWords = clause.split(/\s+/u);
      const worth = worthOf(clauseWords);
      if (worth > best) {
        best = worth;
        words = clauseWords;
      }
    }
    if (words.length <= FOCUS_WORDS) return words.join(' ');
    // of a long clause, the first FOCUS_WORDS words with the most of the question, moved to have them in the middle
    let from = 0;
    best = -1;
    for (let start = 0; start + FOCUS_WORDS <= words.length; start++) {
      const worth = worthOf(words.slice(start, start + FOCUS_WORDS));
      if (worth > best) {
        best = worth;
        from = start;
      }
    }
    const hits = words.slice(from, from + FOCUS_WORDS).flatMap((token, i) => (worthOf([token]) > 0 ? [from + i] : []));
    if (hits.length > 0) from = Math.max(0, Math.min(words.length - FOCUS_WORDS, Math.round((hits[0]! + hits.at(-1)!) / 2) - Math.floor(FOCUS_WORDS / 2)));
    return words.slice(from, from + FOCUS_WORDS).join(' ');
  };
  return { language, candidates, quote, focus };
}

/**
 * The sentences that answer the same question or heading as sentence `k`: from the line after the
 * last question or heading on its own line before it to the line before the next one (another
 * exam item's answer, another section).
 */
function blockOf(own: Sentence[], k: number): { from: number; to: number } {
  let from = 0;
  let to = own.length - 1;
  for (const [i, sentence] of own.entries()) {
    // (a list's heading may be its paragraph's intro: "This happens in two steps:")
    if (sentence.under === undefined || sentence.item !== undefined) continue;
    if (i <= k) from = sentence.under.to + 1;
    else {
      to = sentence.under.from - 1;
      break;
    }
  }
  return { from, to };
}

/**
 * The prose sentence of the passage's `block`, outside `quoted`, that has the most question words the quoted
 * sentences lack ("Kidneys filter blood ..." beside a best sentence on the loop of Henle, for "...
 * by what organs?"), the first of equals, if it fits in the answer; undefined when none adds a word.
 */
function completingSentence(own: Sentence[], quoted: Set<number>, block: { from: number; to: number }, words: number, language: string): number | undefined {
  const lacking = own[0]!.credit.map((_, i) => [...quoted].every((k) => own[k]!.credit[i]! < PREFIX_CREDIT));
  let found: number | undefined;
  let most = 0;
  for (const [k, sentence] of own.entries()) {
    if (k < block.from || k > block.to || quoted.has(k) || !sentence.prose || sentence.language !== language || words + sentence.words > MAX_WORDS_COMPLETING) continue;
    const adds = sentence.credit.filter((c, i) => lacking[i] && c >= PREFIX_CREDIT).length;
    if (adds > most) [found, most] = [k, adds];
  }
  return found;
}

/** The question's distinct pairs of consecutive content words, as positions in `asked` ("earth moon", "moon sun" in "... the earth is between the moon and the sun ..."). */
function consecutivePairs(sequence: string[], asked: Word[]): [number, number][] {
  const at = new Map(asked.map((w, i) => [w.term, i]));
  const pairs = new Map<string, [number, number]>();
  for (let i = 0; i + 1 < sequence.length; i++) {
    const [a, b] = [at.get(sequence[i]!)!, at.get(sequence[i + 1]!)!];
    if (a !== b) pairs.set(`${a} ${b}`, [a, b]);
  }
  return [...pairs.values()];
}

/** Which of the question's pairs a sentence has next to each other and in the same order (in any of the forms `match` accepts). */
function pairsIn(sequence: string[], credits: Map<string, number[]>, askedPairs: [number, number][]): Set<number> {
  const found = new Set<number>();
  if (askedPairs.length === 0) return found;
  for (let i = 0; i + 1 < sequence.length; i++) {
    const here = credits.get(sequence[i]!)!;
    const next = credits.get(sequence[i + 1]!)!;
    for (let k = 0; k < askedPairs.length; k++) {
      const [a, b] = askedPairs[k]!;
      if (here[a]! > 0 && next[b]! > 0) found.add(k);
    }
  }
  return found;
}

/** Whether `next` starts with words of `previous` ("... into sugar." "The raw materials are ...": its first two words). */
function continues(previous: AnalysedSentence, next: AnalysedSentence): boolean {
  const opening = next.sequence.slice(0, 2);
  return opening.length === 2 && opening.every((term) => previous.sequence.includes(term));
}

/**
 * Which question words a word may match at all (`match` above 0): the same word, the same stem or
 * the same beginning of as many clusters as `match` asks for. Most words of the passages share none
 * of these, and are then told apart by a few lookups instead of a comparison with every question word.
 */
function askedIndex(asked: Word[]): (word: Word) => number[] {
  const byTerm = new Map<string, number[]>();
  const byStem = new Map<string, number[]>();
  const byHead = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, i: number) => {
    const found = map.get(key);
    if (found === undefined) map.set(key, [i]);
    else found.push(i);
  };
  for (const [i, q] of asked.entries()) {
    add(byTerm, q.term, i);
    if (q.stem.length >= 3) add(byStem, q.stem, i);
    const head = LATIN_WORD.test(q.term) ? q.longHead : q.shortHead;
    if (head !== null) add(byHead, head, i);
  }
  return (word) => {
    const term = byTerm.get(word.term);
    const stem = byStem.get(word.stem);
    const short = word.shortHead === null ? undefined : byHead.get(word.shortHead);
    const long = word.longHead === null ? undefined : byHead.get(word.longHead);
    if (!term && !stem && !short && !long) return NOTHING_NEAR;
    return [...new Set([...(term ?? []), ...(stem ?? []), ...(short ?? []), ...(long ?? [])])];
  };
}

const NOTHING_NEAR: number[] = [];

function uniqueWords(list: string[]): Word[] {
  return [...new Set(list)].map(wordOf);
}

// Analysing the passages' sentences and words, the same whatever the question, took most of an
// answer's processor time (segmenter passes over every word of every passage), and queries keep
// retrieving the same passages and meeting the same curriculum words: each is analysed once.
const wordOf = memoised((term): Word => {
  const clusters = Array.from(GRAPHEMES.segment(term), (s) => s.segment);
  const head = (n: number) => (clusters.length >= n ? clusters.slice(0, n).join('') : null);
  return { term, stem: stems(term)[0] ?? term, clusters, shortHead: head(SHORT_HEAD), longHead: head(LONG_HEAD) };
}, {
  size: 20_000,
  maxLength: 200,
});
const analysedSentences = memoised(
  (passageText): AnalysedSentence[] =>
    answerSentences(splitMarkedText(passageText).map((p) => p.text).join('\n')).map((sentence) => {
      // the remembered words' own strings, not a copy per sentence: a third of the memo's heap
      const sequence = terms(sentence.text).map((term) => wordOf(term).term);
      return { ...sentence, words: wordCount(sentence.text), language: sentenceLanguage(sentence.text), sequence, own: uniqueWords(sequence) };
    }),
  // retrieved chunks are under 2,000 characters (src/domain/documents/chunker.ts)
  { size: 2_000, maxLength: 4_000 },
);

/** The words of `text` that a negation speaks of ("not only" and "No. 3" are none). */
const negatedWords = memoised(
  (text: string): string[] => {
    const raw = text.normalize('NFC').split(/\s+/u);
    const tokens = raw.map((token) => token.replace(EDGE_PUNCTUATION, ''));
    const negated = new Set<number>();
    const add = (...at: number[]) => at.forEach((j) => j >= 0 && j < tokens.length && negated.add(j));
    tokens.forEach((token, i) => {
      if (NON_WORD.test(token) || NEGATIVE_VERB.test(token)) add(i, NEGATIVE_VERB.test(token) && !token.includes('රහිත') ? i - 1 : -1);
      else if (PARTICLE_NEGATION.test(token)) add(i - 1);
      else if (SINHALA_NEGATION.test(token)) {
        // the verb: the rest of the word, or the next word after නො standing apart
        const [verb, at] = token === 'නො' ? [tokens[i + 1] ?? '', i + 1] : [token.slice('නො'.length), i];
        add(i - 1, SINHALA_LIGHT_VERB.test(verb) ? -1 : at);
      } else if (ENGLISH_NEGATION.test(token) && !(/^not$/iu.test(token) && /^only$/iu.test(tokens[i + 1] ?? '')) && !(/^no\.$/iu.test(raw[i]!) && /^\p{N}/u.test(tokens[i + 1] ?? ''))) {
        // the next two words that are not stopwords, within four
        let found = 0;
        for (let j = i + 1; j <= i + 4 && j < tokens.length && found < 2; j++) {
          if (terms(tokens[j]!).length > 0) {
            add(j);
            found++;
          }
        }
      }
    });
    return [...negated].map((i) => tokens[i]!);
  },
  { size: 2_000, maxLength: 2_000 },
);

/**
 * How well a sentence's word stands for a question's word: the same word, the same stem
 * (Sinhala and Tamil suffixes, English plurals), or a long shared beginning
 * ("photosynthesize" for "photosynthesis", "ආර්මේනියාවේ" for "ආර්මේනියාව").
 */
function match(asked: Word, word: Word): number {
  if (asked.term === word.term) return 1;
  if (asked.stem === word.stem && asked.stem.length >= 3) return LATIN_WORD.test(asked.term) ? 1 : STEM_CREDIT;
  const shorter = Math.min(asked.clusters.length, word.clusters.length);
  let shared = 0;
  while (shared < shorter && asked.clusters[shared] === word.clusters[shared]) shared++;
  // English words share a beginning of five letters with at most three left over; Sinhala and Tamil ones three clusters
  const long = LATIN_WORD.test(asked.term) ? shared >= LONG_HEAD && shared >= shorter - 3 : shared >= SHORT_HEAD && shared >= shorter - 2;
  return long ? PREFIX_CREDIT : 0;
}

/**
 * The sentences of a passage as the answer quotes them: a name's initial ("Ulysses S. Grant",
 * "යුලිසස් එස්. ග්‍රාන්ට්") or an abbreviation in parentheses does not end a sentence, and a
 * heading run into its first sentence
 * ("Classification Features of Animals Animals are ...") is left out.
 */
function answerSentences(passageText: string): Pick<Sentence, 'text' | 'prose' | 'answers' | 'under' | 'item' | 'introduced' | 'paragraph'>[] {
  const text = headingsApart(passageText);
  const out: Pick<Sentence, 'text' | 'prose' | 'answers' | 'under' | 'item' | 'introduced' | 'paragraph'>[] = [];
  // whether each sentence follows prose (or a question inside a paragraph) on its line: a question there is in a paragraph too
  const afterProse: boolean[] = [];
  // whether each sentence starts on the line where the one before it ends
  const onLine: boolean[] = [];
  // whether each sentence is a list item or the rest of one on its line
  const inItem: boolean[] = [];
  // whether each sentence had a mark allocation ("[2 marks]"): an exam paper's
  const marked: boolean[] = [];
  // whether each sentence is an exam item's later sentence on its line ("9. Two angles ... are 48° and 65°. Find the third angle.")
  const inExam: boolean[] = [];
  let previousEnd = -1;
  // the item a line under it went on with: one line goes on with an item, not the paragraphs after the list
  let itemGoneOn: number | undefined;
  let paragraph = 0;
  for (const { start, end } of sentenceSpans(text)) {
    const between = previousEnd >= 0 ? text.slice(previousEnd, start) : '\n';
    const sameLine = !between.includes('\n');
    // (a glossary's entry on its line is a paragraph of its own: "Ion: an atom ...", "Isotope - atoms ...")
    if (/\n[^\S\n]*\n/u.test(between) || (!sameLine && GLOSSARY_ENTRY.test(text.slice(start, end)))) paragraph++;
    previousEnd = end;
    const raw = text.slice(start, end).replace(/\s+/g, ' ');
    const sentence = raw.replace(MARK_ALLOCATION, '');
    const marks = raw.search(MARK_ALLOCATION) >= 0;
    const previous = out.at(-1);
    // a mark allocation the segmenter cut off its question ("2. Who built Sigiriya? [1 mark]") is
    // that question's: as a sentence of its own it ended the question's line, whose answer below
    // was then judged without the question's words (an exam paper's items found nothing)
    if (previous !== undefined && sameLine && marks && sentence.trim() === '') {
      marked[marked.length - 1] = true;
      continue;
    }
    // (an exam item after "... A'.B." starts anew: its "B." was no initial; so does an answer's
    // label after "... with inputs A and B.")
    if (previous !== undefined && !EXAM_ITEM.test(sentence) && !ANSWER_LABEL.test(sentence) && ((INITIAL_AT_END.test(previous.text) && !UNIT_AT_END.test(previous.text)) || (sameLine && ABBREVIATION_IN_PARENTHESES.test(previous.text)))) {
      const joined = `${previous.text} ${sentence}`;
      out[out.length - 1] = { ...previous, text: joined, ...classify(joined, afterProse.at(-1)!, inItem.at(-1)! || inExam.at(-1)!) };
      marked[marked.length - 1] ||= marks;
      continue;
    }
    const cleaned = withoutGluedHeading(sentence.replace(CAPTION_LABEL, ''));
    const startsItem = LIST_ITEM.test(cleaned);
    // the line right under an item that opens pointing back goes on with it (its indentation is
    // gone: "- Transpiration is ...\n  It happens ...")
    const goesOn = !startsItem && NEXT_LINE.test(between) && OPENS_POINTING_BACK.test(cleaned) && previous?.item !== undefined && previous.item !== itemGoneOn;
    if (goesOn) itemGoneOn = previous.item;
    afterProse.push(sameLine && (previous?.prose === true || previous?.answers === true));
    onLine.push(sameLine);
    marked.push(marks);
    inExam.push(sameLine && previous !== undefined && (EXAM_ITEM.test(previous.text) || inExam.at(-1) === true) && !ANSWER_LABEL.test(cleaned));
    inItem.push(startsItem || ((sameLine || goesOn) && inItem.at(-1) === true));
    // an item is quoted without its bullet
    const shown = startsItem ? cleaned.replace(LIST_ITEM, '') : cleaned;
    const item = startsItem ? out.length : inItem.at(-1) ? previous?.item : undefined;
    out.push({ text: shown, item, paragraph, ...classify(shown, afterProse.at(-1)!, inItem.at(-1)! || inExam.at(-1)!) });
  }
  // a run of numbered lines none of which asks, instructs or carries marks, in a passage that is
  // no true-or-false paper, is a list: steps or facts ("3. Dip the leaf in boiling water for one
  // minute. This kills the cells ..."), quoted without their numbers. A run starts again where the
  // numbers do ("Exercise" after numbered notes).
  const runs: { from: number; to: number }[][] = [];
  let lastNumber = Infinity;
  for (let i = 0; i < out.length; i++) {
    if (onLine[i] || !NUMBERED.test(out[i]!.text)) continue;
    let to = i;
    while (to + 1 < out.length && onLine[to + 1]) to++;
    const number = Number(/\d+/.exec(out[i]!.text)![0]);
    if (number <= lastNumber) runs.push([]);
    runs.at(-1)!.push({ from: i, to });
    lastNumber = number;
    i = to;
  }
  // (an exam paper numbers its questions alike: when one of them asks, they all are questions)
  const asking = ({ from, to }: { from: number; to: number }) => {
    const line = out.slice(from, to + 1);
    return marked.slice(from, to + 1).includes(true) || line.some((s) => QUESTION_END.test(s.text) || instructsAsExam(s.text));
  };
  const trueOrFalse = TRUE_OR_FALSE.some((instruction) => instruction.test(text));
  for (const { from, to } of runs.flatMap((run) => (trueOrFalse || run.some(asking) ? [] : run))) {
    out[from]!.text = out[from]!.text.replace(NUMBERED, '');
    for (let k = from; k <= to; k++) {
      out[k]!.item = from;
      inItem[k] = true;
    }
  }
  // a list item's sentences may answer (a definition in a list: "A proper fraction has a numerator
  // smaller than its denominator, ..."), quoted from its first sentence (in their language), which
  // must stand alone (rankCandidates)
  for (const sentence of out) {
    if (sentence.item === undefined) continue;
    sentence.prose = false;
    sentence.answers = itemMayAnswer(sentence.text, false);
  }
  // a question that prose follows on its line is in a paragraph too, where a PDF's line starts with it
  // ("What is special about this element that makes diamond so hard? Bonds. Chemical bonds.")
  for (let i = 0; i + 1 < out.length; i++) if (!out[i]!.answers && onLine[i + 1] && out[i + 1]!.prose) out[i]!.answers = classify(out[i]!.text, true, inItem[i]!).answers;
  for (const [i, sentence] of out.entries()) {
    // a line of its own that is not prose nor a list item is a question (an exam item, a worked example's) or a heading
    if (sentence.answers || sentence.prose || inItem[i] || onLine[i + 1] !== false || !HAS_LETTER.test(sentence.text) || RUN_IN_ITEMS.test(sentence.text)) continue;
    // the line's earlier sentences ("(a) Sunil deposits Rs. 50,000 ... per year.") are the question's too; after prose it is no line of its own
    let from = i;
    while (from > 0 && onLine[from] && !out[from - 1]!.prose && !out[from - 1]!.answers) from--;
    if (onLine[from]) continue;
    // the answer's first prose, after at most one formula
    let k = i + 1;
    if (k < out.length && !HAS_LETTER.test(out[k]!.text)) k++;
    // a question or an exam item's instruction counts in full, a heading less; an exam item that
    // neither asks nor instructs (a true-or-false paper's statement) is answered by nothing
    const line = out.slice(from, i + 1).map((o) => o.text).join(' ');
    const item = EXAM_ITEM.test(line);
    const asks = out.slice(from, i + 1).some((o) => QUESTION_END.test(o.text)) || (item && instructs(line));
    if (!asks && item) continue;
    const under = { from, to: i, weight: asks ? 1 : HEADING_WEIGHT };
    if (k < out.length && out[k]!.prose) out[k]!.under = under;
    // each item of a list right under a heading ("ஒளித்தொகுப்பின் முக்கியத்துவம்" over "• ..."), on
    // its first sentence; not under a question, whose items are its options or instructions
    else if (!asks) for (; k < out.length && out[k]!.item !== undefined; k++) if (out[k]!.item === k) out[k]!.under = under;
  }
  // a list after a sentence ending in ":" is what that sentence announces, after prose on its line
  // or as a line of its own of a few words, unless it instructs ("List three uses of water:");
  // short titles ("Contents:", "Key words:") and a question's stem ("... is:") announce nothing, nor
  // do learning outcomes (every item an instruction: "describe ...", "explain ...")
  for (let k = 1; k < out.length; k++) {
    const intro = out[k - 1]!;
    const placed = onLine[k - 1] ? out[k - 2]!.prose : wordCount(intro.text) >= MIN_ANNOUNCING_WORDS && !STEM.test(intro.text);
    if (out[k]!.item !== k || intro.item !== undefined || !INTRODUCES.test(intro.text) || !placed || EXERCISE.test(intro.text) || instructs(intro.text)) continue;
    const items: number[] = [];
    for (let j = k; j < out.length && out[j]!.item !== undefined; j++) if (out[j]!.item === j) items.push(j);
    if (items.every((j) => INSTRUCTIONS.has(words(out[j]!.text)[0] ?? ''))) continue;
    for (const j of items) {
      out[j]!.introduced = true;
      out[j]!.under ??= { from: k - 1, to: k - 1, weight: HEADING_WEIGHT };
      out[j]!.answers = itemMayAnswer(out[j]!.text, true);
    }
  }
  return out;
}

/** Whether an exam item's line has an instruction's verb ("Find ...", "... குறிப்பிடுக."). */
function instructs(line: string): boolean {
  return words(line).some((word) => INSTRUCTIONS.has(word));
}

/**
 * Whether a sentence instructs as only an exam does, where the verb stands: first in English
 * ("2. Explain ..."; "In the gaseous state ..." does not), last in Sinhala and Tamil ("...
 * குறிப்பிடுக.", "... සඳහන් කරන්න.").
 */
function instructsAsExam(sentence: string): boolean {
  const list = words(sentence.replace(NUMBERED, ''));
  const last = list.at(-1) === 'කරන්න' ? list.at(-2) : list.at(-1);
  return (list[0] !== undefined && LATIN_WORD.test(list[0]) && EXAM_VERBS.has(list[0])) || (last !== undefined && !LATIN_WORD.test(last) && EXAM_VERBS.has(last));
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{M}]+/u).filter(Boolean);
}

/**
 * A blank line after each line that reads as a heading or a paragraph's end: it has no closing
 * punctuation, and the next line's first word would have fitted on it, so the line did not stop at
 * the margin (in English the next line must also start with a capital). The sentence splitter
 * joins the lines a PDF wraps, so without this a heading of more than a few words ("Grade 8
 * History, Chapter 2: The Founding of Anuradhapura") would be run into the sentence under it.
 * (A short line that ends a sentence is no paragraph's end: what follows it often completes it,
 * "The functions of the liver are given below.", "Find the HCF of 12 and 18.\nHCF = 6.")
 */
function headingsApart(text: string): string {
  const lines = text.split('\n');
  const lengths = lines.map((line) => line.trim().length).filter((n) => n > 0).sort((a, b) => a - b);
  // most lines of a PDF's paragraph are full: the upper quartile is the width of the text
  const full = lengths[Math.floor(lengths.length * 0.75)] ?? 0;
  return lines
    .map((line, i) => {
      const next = lines[i + 1]?.trim() ?? '';
      const nextWord = next.split(/\s/)[0]!;
      const stopsShort = line.trim().length + 1 + nextWord.length < FULL_SHARE * full;
      const heading = line.trim() !== '' && next !== '' && !LINE_END.test(line) && stopsShort && !/^\p{Ll}/u.test(next);
      return heading ? `${line}\n` : line;
    })
    .join('\n');
}

// Punctuation that may end a line of prose (a sentence or a clause going on below)
const LINE_END = /[.!?,;:।෴]["'”’)\]]*\s*$/u;
/** A line with room left for the next word, by this share of the text's width, stopped before the margin. */
const FULL_SHARE = 0.9;

// An initial, a short title or an abbreviation before a number: one capital letter, Dr., Mr., St., Rs. (rupees),
// or a Sinhala or Tamil letter with virama
const INITIAL_AT_END = /(?:^|\s)(?:\p{Lu}|Dr|Mr|Mrs|Ms|St|Mt|Prof|Rs|[\u0D80-\u0DFF\u0B80-\u0BFF]{1,2}[\u0DCA\u0BCD])\.$/u;
// A unit's symbol after a quantity ("12 V.", "3 A.", "1000 W.") ends a sentence; after a year it is an initial ("In 1948 D. S. Senanayake")
const UNIT_AT_END = /(?:^|\s)(?!(?:1[5-9]|20)\d\d\s)\d+(?:[.,]\d+)?\s[VAWNJCKFHTGΩ]\.$/u;
// a gloss, an expansion or an aside: "CPU (Central Processing Unit) යනු ..."
const PARENTHESES = /\([^()]*\)/gu;
// A parenthesis opened just before the full stop holds an abbreviation ("(ක්‍රි. ව. 1153–1186)", "(approx. 5 cm)"), not a sentence's end
const ABBREVIATION_IN_PARENTHESES = /\([^()\s]*(?:\s[^()\s]*)?\.$/u;
// A capitalised heading of one or more words (joined by short lower-case words) before a sentence
// that starts with a capital and goes on in lower case
const GLUED_HEADING = /^((?:\p{Lu}[\p{L}'’-]*\s+(?:(?:and|of|the|in|to|for|a|an|on|with)\s+)*)+)(\p{Lu}[\p{L}'’-]*\s+\p{Ll})/u;
const ARTICLE = /^(The|A|An)\s/u;

function withoutGluedHeading(sentence: string): string {
  const found = GLUED_HEADING.exec(sentence);
  if (!found) return sentence;
  const heading = found[1]!.trim();
  const first = found[2]!.split(/\s/)[0]!;
  const headingWords = heading.split(/\s+/);
  // the heading's last word repeated ("Neurons Neurons are"), or three capitalised words not led by an article
  const repeated = headingWords.at(-1)!.toLowerCase() === first.toLowerCase();
  const capitalised = headingWords.filter((w) => /^\p{Lu}/u.test(w)).length;
  if (repeated || (capitalised >= 3 && !ARTICLE.test(heading))) return sentence.slice(found[1]!.length);
  return sentence;
}

/**
 * Prose has letters and is not an exam item or a list item, not a heading (short, unpunctuated)
 * and not a question; a question inside a paragraph (prose before or after it on its line) may
 * still answer: it is not an exam question's line. `inItem`: the sentence is a list item, or the
 * rest of one on its line (a fragment beside other sentences, whatever it reads like; whether an
 * item answers is decided by its first sentence, in answerSentences).
 */
function classify(text: string, inParagraph: boolean, inItem: boolean): Pick<Sentence, 'prose' | 'answers'> {
  if (inItem || !HAS_LETTER.test(text) || EXAM_ITEM.test(text) || FRAGMENT.test(text) || RUN_IN_ITEMS.test(text) || BLANK.test(text) || EXERCISE.test(text)) return { prose: false, answers: false };
  if (QUESTION_END.test(text)) return { prose: false, answers: inParagraph };
  // what is labelled an answer is one, however it ends ("Answer: SELECT ... GROUP BY StudentID;")
  const prose = SENTENCE_END.test(text) || wordCount(text) >= MIN_UNPUNCTUATED_WORDS || LABELLED_ANSWER.test(text);
  return { prose, answers: prose };
}

/**
 * Whether a list item's sentence may answer: punctuated as a sentence (in a list a sentence
 * announces, anything but a question), with a letter, and no blank to fill in.
 */
function itemMayAnswer(text: string, introduced: boolean): boolean {
  return (introduced ? !QUESTION_END.test(text) : SENTENCE_END.test(text)) && HAS_LETTER.test(text) && !BLANK.test(text);
}

/**
 * A list item's first sentence (its bullet taken off) that stands alone: one that may answer,
 * long enough to say something, not an exam item nor a sublist, and not pointing back early on to
 * what comes before the list ("He built ...").
 */
function standsAlone(text: string, introduced: boolean): boolean {
  return (
    itemMayAnswer(text, introduced) &&
    wordCount(text) >= MIN_ITEM_WORDS[sentenceLanguage(text)] &&
    !EXAM_ITEM.test(text) &&
    !FRAGMENT.test(text) &&
    !RUN_IN_ITEMS.test(text) &&
    !ITEM_POINTS_BACK.test(text)
  );
}

/**
 * A sentence's language by its letters (with their vowel signs): Sinhala and Tamil sentences often
 * carry English terms and symbols ("RAM (Random Access Memory) යනු ...", "පිළිතුර: I = V/R = 3 A."),
 * so a share of letters in their script makes them so, but an English sentence with a gloss
 * ("Photosynthesis (ප්‍රභාසංශ්ලේෂණය) is ...") stays English.
 */
function sentenceLanguage(text: string): Language {
  let sinhala = 0;
  let tamil = 0;
  let letters = 0;
  // a gloss or an expansion in parentheses ("CPU (Central Processing Unit ...) යනු ...") is not the sentence's language
  const outside = text.replace(PARENTHESES, ' ');
  for (const char of HAS_LETTER.test(outside) ? outside : text) {
    if (SINHALA_LETTER.test(char)) sinhala++;
    else if (TAMIL_LETTER.test(char)) tamil++;
    else if (!HAS_LETTER.test(char)) continue;
    letters++;
  }
  const least = Math.max(1, SCRIPT_SHARE * letters);
  if (sinhala >= least && sinhala >= tamil) return 'sinhala';
  return tamil >= least ? 'tamil' : 'english';
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
