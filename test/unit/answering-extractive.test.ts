import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { answerByMeaning, rememberingQuestion } from '../../src/domain/answering/by-meaning.js';
import { extractiveAnswer, rankCandidates } from '../../src/domain/answering/extractive.js';
import type { Passage } from '../../src/domain/answering/passage.js';
import { DependencyUnavailableError } from '../../src/domain/errors.js';
import type { Embedder, EmbeddingKind } from '../../src/domain/ports/embedder.js';

const passage = (text: string, language: string | null = 'english', name = 'doc.pdf'): Passage => ({
  documentId: 'doc_1',
  documentName: name,
  pages: [1],
  metadata: {},
  text,
  language,
});

describe('extractive answers', () => {
  test('quote the sentences that share most words with the question, each once, in document order', () => {
    const overlap = 'Chlorophyll absorbs light energy for photosynthesis.';
    const drafted = extractiveAnswer('What does chlorophyll absorb for photosynthesis?', [
      passage(`--- PAGE 1 ---\nPlants are green. ${overlap}`),
      passage(`${overlap} Roots take up water.`),
    ]);
    expect(drafted.answer).toBe(overlap);
    expect(drafted.used).toEqual([0]);
  });

  test('prefer passages in the question\'s language, but always consider attachments', () => {
    const drafted = extractiveAnswer('ප්‍රභාසංශ්ලේෂණය යනු කුමක්ද?', [
      passage('Photosynthesis makes glucose.', 'english'),
      passage('වැසි ජලය ගංගා වලට ගලා යයි.', 'sinhala'),
      passage('මගේ සටහන: ප්‍රභාසංශ්ලේෂණය යනු ශාක ආහාර නිපදවන ක්‍රියාවලියයි.', null, 'notes.txt'),
    ]);
    expect(drafted).toEqual({ answer: 'මගේ සටහන: ප්‍රභාසංශ්ලේෂණය යනු ශාක ආහාර නිපදවන ක්‍රියාවලියයි.', used: [2] });
  });

  test("each sentence's own script decides its language: an English sentence of a document tagged Sinhala answers an English question", () => {
    const bilingual = passage('ස්කන්ධය මනින්නේ කෙසේද? The mass of an object is measured in kilograms using a beam balance.', 'sinhala', 'bilingual.txt');
    const other = passage('Apples are sold by the kilogram at the village market every Sunday.', 'english', 'market.txt');
    expect(extractiveAnswer('How is the mass of an object measured?', [other, bilingual])).toEqual({
      answer: 'The mass of an object is measured in kilograms using a beam balance.',
      used: [1],
    });
    // a Sinhala sentence with English terms is Sinhala, and an answer does not go on into the other language's sentence
    const ram = passage('RAM (Random Access Memory) යනු තාවකාලික මතකයයි. RAM is temporary memory that is lost when the power goes.', 'sinhala');
    expect(extractiveAnswer('RAM යනු කුමක්ද?', [ram, passage('ROM යනු ස්ථිර මතකයයි.', 'sinhala')]).answer).toBe('RAM (Random Access Memory) යනු තාවකාලික මතකයයි.');
    const translated = passage('Photosynthesis makes food in green leaves. ප්‍රභාසංශ්ලේෂණය කොළ පැහැති පත්‍රවල ආහාර නිපදවයි.', 'english');
    expect(extractiveAnswer('Where does photosynthesis make food?', [translated]).answer).toBe('Photosynthesis makes food in green leaves.');
  });

  test('quote prose from one passage: never a heading, page furniture, a question or an exam item', () => {
    const text = [
      '--- PAGE 1 ---',
      'Photosynthesis: How Plants Make Food',
      'Grade 10 Science, Unit 4',
      'Green plants make their own food by photosynthesis. They need light, water and carbon dioxide.',
      '1. What do plants need for photosynthesis?',
      'Why do plants need photosynthesis?',
    ].join('\n');
    const drafted = extractiveAnswer('What do plants need for photosynthesis?', [passage(text), passage('Photosynthesis happens in leaves.')]);
    expect(drafted).toEqual({ answer: 'Green plants make their own food by photosynthesis. They need light, water and carbon dioxide.', used: [0] });
  });

  test('a sentence that points back brings the one before it; a long one stands alone', () => {
    const drafted = extractiveAnswer('What is the protein in red blood cells which transports oxygen around the body?', [
      passage(
        'Hemoglobin is found in red blood cells. It is the protein in red blood cells which transports oxygen around the body. ' +
          'Anaemia, a lack of it, makes people tired, pale and short of breath, and is treated with iron in food or tablets for weeks.',
      ),
    ]);
    expect(drafted.answer).toBe('Hemoglobin is found in red blood cells. It is the protein in red blood cells which transports oxygen around the body.');
    const long = `Plants ${'really '.repeat(40)}need light to make food. Plants also need water.`;
    expect(extractiveAnswer('What do plants need to make food?', [passage(long)]).answer.split(/\s+/)).toHaveLength(46);
  });

  test('a heading run into its first sentence, and a caption\'s label, are left out of the quote', () => {
    const repeated = extractiveAnswer('What are neurons the basis of?', [passage('Neurons Neurons are the cells considered to be the basis of nervous tissue.')]);
    expect(repeated.answer).toBe('Neurons are the cells considered to be the basis of nervous tissue.');
    const titled = extractiveAnswer('How are animals classified?', [passage('Classification Features of Animals Animals are classified by their body plan.')]);
    expect(titled.answer).toBe('Animals are classified by their body plan.');
    const caption = extractiveAnswer('What are vertebrata characterized by?', [passage('Figure 29.7 Vertebrata are characterized by the presence of a backbone.')]);
    expect(caption.answer).toBe('Vertebrata are characterized by the presence of a backbone.');
    // a sentence that merely starts with capitalised words keeps them
    const name = 'The United States Congress passed the law in 1964.';
    expect(extractiveAnswer('When did Congress pass the law?', [passage(name)]).answer).toBe(name);
  });

  test('a PDF\'s heading line stays apart from the wrapped sentence under it; a line wrapped before a long word does not', () => {
    const pdf = [
      '--- PAGE 1 ---',
      'The Anuradhapura Kingdom',
      'Grade 8 History, Chapter 2: The Founding of Anuradhapura',
      'For more than a thousand years, from about the fourth century BCE to the beginning of the',
      'eleventh century CE, Anuradhapura was the capital of the island. This long period is called',
      'the Anuradhapura period.',
    ].join('\n');
    expect(extractiveAnswer('When was Anuradhapura the capital?', [passage(pdf)]).answer).toBe(
      'For more than a thousand years, from about the fourth century BCE to the beginning of the eleventh century CE, ' +
        'Anuradhapura was the capital of the island. This long period is called the Anuradhapura period.',
    );
    // the second line stops short only because the long word after it did not fit
    const sinhala = [
      'ප්‍රභාසංශ්ලේෂක බැක්ටීරියා පරිණාමය වීමට පෙර නිදහස් ඔක්සිජන් වායුව පෘථිවි වායුගෝලයේ නොතිබුණි.',
      'නිදහස් ඔක්සිජන් ප්‍රථම වරට සැලකිය යුතු ප්‍රමාණයකින් පෙනී සිටියේ',
      'පැලියෝප්‍රොටෙරෝසොයික් යුගයේදී ය. පළමු වසර බිලියනය තුළ මෙම ජීවීන් නිපදවූ ඔක්සිජන් යකඩ සමඟ',
      'ඒකාබද්ධ විය.',
    ].join('\n');
    expect(extractiveAnswer('නිදහස් ඔක්සිජන් පෙනී සිටියේ කුමන යුගයේදීද?', [passage(sinhala, 'sinhala')]).answer).toMatch(
      /^නිදහස් ඔක්සිජන් ප්‍රථම වරට සැලකිය යුතු ප්‍රමාණයකින් පෙනී සිටියේ පැලියෝප්‍රොටෙරෝසොයික් යුගයේදී ය\./,
    );
  });

  test('list items run into prose, and items that are no whole sentence, are never quoted', () => {
    const text = [
      'By the end of this section, you will be able to: • Describe the ovaries • List the steps of oogenesis',
      '- Ovaries: the female gonads',
      '- The female gonads.',
      'The female gonads are the ovaries, which make eggs.',
    ].join('\n');
    expect(extractiveAnswer('What organs are the female gonads?', [passage(text)]).answer).toBe('The female gonads are the ovaries, which make eggs.');
  });

  test('a list item that is a whole sentence answers alone, with the rest of its line, never with the next item nor when it opens pointing back', () => {
    const text = [
      'Kinds of fractions',
      '- A proper fraction has a numerator smaller than its denominator, for example 2/5. Its value is less than one.',
      '- An improper fraction has a numerator equal to or greater than its denominator. Its value is one or more.',
      'Fractions are used every day when food is shared.',
    ].join('\n');
    expect(extractiveAnswer('What is a proper fraction?', [passage(text)]).answer).toBe(
      'A proper fraction has a numerator smaller than its denominator, for example 2/5. Its value is less than one.',
    );
    expect(extractiveAnswer('What is the value of an improper fraction?', [passage(text)]).answer).toBe(
      'An improper fraction has a numerator equal to or greater than its denominator. Its value is one or more.',
    );
    // a definition as a Tamil list item ("palisade layer: long cells packed under the upper epidermis.")
    const tamil = ['இலையின் அமைப்பு', '- வேலிக்கலப் படை: மேற்றோலுக்குக் கீழே நெருக்கமாக அமைந்த நீண்ட கலங்கள்.', '- பஞ்சுக்கலப் படை: தளர்வாக அமைந்த கலங்கள், இடையே வளி இடைவெளிகள் உள்ளன.'].join('\n');
    expect(extractiveAnswer('வேலிக்கலப் படை என்றால் என்ன?', [passage(tamil, 'tamil')]).answer).toBe('வேலிக்கலப் படை: மேற்றோலுக்குக் கீழே நெருக்கமாக அமைந்த நீண்ட கலங்கள்.');
    // "He" is the king named before the list, which the item never brings with it, also a few words in
    const kings = ['King Mahasena ruled in the third century.', '- He built sixteen large tanks, including the Minneriya tank.', '- In his reign he built the Jetavanaramaya stupa.'].join('\n');
    expect(extractiveAnswer('Who built sixteen large tanks?', [passage(kings)]).answer).not.toMatch(/He built/);
    expect(extractiveAnswer('Who built the Jetavanaramaya stupa?', [passage(kings)]).answer).not.toMatch(/he built/);
  });

  test("a list item's later sentences on its line are the item's too, never quoted without its subject", () => {
    // the segmenter ends a sentence after "=COUNT counts numbers.": the tail alone would answer for another function
    const text = [
      'Spreadsheet errors tell you what went wrong in a formula.',
      '• #NAME? appears when the function name is misspelt, for example =SUMM(B2:B6).',
      '- =COUNT counts cells with numbers. =COUNTA counts cells that are not empty, including text.',
      'The #VALUE! error appears when a formula uses text where a number is needed.',
    ].join('\n');
    expect(extractiveAnswer('When does the #VALUE! error appear?', [passage(text)]).answer).toBe('The #VALUE! error appears when a formula uses text where a number is needed.');
    expect(extractiveAnswer('Which function counts cells that are not empty?', [passage(text)]).answer).not.toMatch(/=COUNTA counts/);
    // and so is one joined to the next after a name's initial, which ends no sentence
    const generals = ['Leaders of the war are listed here.', '• Generals. The leading general was Ulysses S. Grant of Ohio.', 'Many soldiers came from farms in the north.'].join('\n');
    expect(extractiveAnswer('Who was the leading general from Ohio?', [passage(generals)]).answer).not.toMatch(/Grant/);
  });

  test("an answer's label after a capital letter and a full stop starts a sentence: the label is no initial's surname", () => {
    const paper = [
      'Question 1: Logic gates and Boolean algebra',
      '(a) Draw the truth table of the XOR (exclusive OR) gate with inputs A and B.',
      'Answer: the XOR output is 1 only when the inputs are different. A = 0, B = 0 gives 0; A = 1, B = 1 gives 0.',
      '(b) Simplify the expression X = A.B + A.B\'.',
      "Answer: X = A.(B + B') = A.1 = A. The simplified circuit needs no gate at all.",
    ].join('\n');
    expect(extractiveAnswer('What is the truth table of the XOR gate?', [passage(paper)]).answer).toMatch(/^Answer: the XOR output is 1 only when the inputs are different\./);
  });

  test('a sentence labelled as an answer answers however it ends (code ends with a semicolon)', () => {
    const paper = [
      '(c) Write an SQL query to list the titles of all books written by the author "Martin Wickramasinghe".',
      "Answer: SELECT Title FROM Book WHERE Author = 'Martin Wickramasinghe';",
      '(d) Write an SQL query to show how many loans each student has made.',
      'Answer: SELECT StudentID, COUNT(*) FROM Loan GROUP BY StudentID;',
    ].join('\n');
    expect(extractiveAnswer('How do I write an SQL query to count how many loans each student has made?', [passage(paper)]).answer).toBe('Answer: SELECT StudentID, COUNT(*) FROM Loan GROUP BY StudentID;');
    const formula = passage('3. Write a formula to find the total of the marks in cells B2 to B10. [2 marks]\nAnswer: =SUM(B2:B10)\n4. Name the chart that shows parts of a whole. [1 mark]\nAnswer: a pie chart.');
    expect(extractiveAnswer('What formula finds the total of the marks in cells B2 to B10?', [formula]).answer).toBe('Answer: =SUM(B2:B10)');
  });

  test("a spreadsheet's error value ending in '?' or '!' does not end its sentence: the item answers", () => {
    const errors = ['Common error messages', '- #DIV/0! appears when a formula divides by zero or by an empty cell.', '- #NAME? appears when the function name is misspelt, for example =SUMM(B2:B6).'].join('\n');
    const binary = passage('The rules are 0 + 0 = 0, 0 + 1 = 1, 1 + 1 = 10 (write 0, carry 1).');
    expect(extractiveAnswer('What does #DIV/0! mean?', [binary, passage(errors)]).answer).toBe('#DIV/0! appears when a formula divides by zero or by an empty cell.');
    expect(extractiveAnswer('When does #NAME? appear?', [passage(errors)]).answer).toBe('#NAME? appears when the function name is misspelt, for example =SUMM(B2:B6).');
  });

  test('a list item in two languages answers in the question\'s, alone: no other sentence completes it', () => {
    const glossary = [
      '- RAM (Random Access Memory) යනු පරිගණකයේ තාවකාලික මතකය ලෙස ක්‍රියා කරන කොටසයි. RAM (Random Access Memory) is the part of a computer that works as its temporary memory.',
      '- ROM (Read Only Memory) යනු ස්ථිර උපදෙස් ගබඩා කරන මතකයයි. ROM (Read Only Memory) is the memory that stores the permanent instructions.',
    ].join('\n');
    expect(extractiveAnswer('What is RAM in a computer?', [passage(glossary, 'sinhala')]).answer).toBe(
      'RAM (Random Access Memory) is the part of a computer that works as its temporary memory.',
    );
    expect(extractiveAnswer('RAM යනු කුමක්ද?', [passage(glossary, 'sinhala')]).answer).toBe('RAM (Random Access Memory) යනු පරිගණකයේ තාවකාලික මතකය ලෙස ක්‍රියා කරන කොටසයි.');
    const rivers = [
      'The rivers of Sri Lanka begin in the central hills.',
      '- The Kelani Ganga flows west and reaches the sea near the capital city.',
      '- The Walawe Ganga flows south and reaches the sea in Hambantota district.',
      '',
      'The Kalu Ganga often floods Kalutara and low parts of Colombo district during the monsoon.',
    ].join('\n');
    expect(extractiveAnswer('Where does the Kelani Ganga reach the sea near Colombo?', [passage(rivers)]).answer).toBe('The Kelani Ganga flows west and reaches the sea near the capital city.');
  });

  test('a sentence or item with a blank to fill in is an exercise, never an answer', () => {
    const exercise = [
      'Fill in the blanks with a suitable word.',
      '- The powerhouse of the cell is the ______________.',
      '- The green pigment that absorbs light in leaves is called __________.',
      'සෛලයේ බලාගාරය ලෙස හඳුන්වන ඉන්ද්‍රිකාව .......................... වේ.',
      '1. The main organ that pumps blood around the human body is the .................. .',
      'The capital city of Sri Lanka is ---------- .',
    ].join('\n');
    // nor is the exercise's instruction, whatever heading it is under; prose that only starts with such a word is prose
    const stages = 'Complete metamorphosis has the following four stages: egg, larva, pupa and adult. Butterflies and beetles go through it.';
    expect(extractiveAnswer('What are the stages of complete metamorphosis?', [passage(stages)]).answer).toMatch(/^Complete metamorphosis has the following four stages/);
    const headed = ['Cells: revision exercise', 'Fill in the blanks with a suitable word.', '- The powerhouse of the cell is the ______.'].join('\n');
    expect(extractiveAnswer('What is the powerhouse of the cell?', [passage(headed)]).used).toEqual([]);
    for (const question of ['What is the powerhouse of the cell?', 'What is the green pigment that absorbs light in leaves called?', 'සෛලයේ බලාගාරය කුමක්ද?', 'Which organ pumps blood around the human body?', 'What is the capital city of Sri Lanka?']) {
      expect(extractiveAnswer(question, [passage(exercise)]).used).toEqual([]);
    }
  });

  test('a numbered line that neither asks, instructs nor carries marks is a list item (a step); one that does is an exam item, and so is a true-or-false paper\'s statement', () => {
    const steps = [
      'The starch test',
      '3. Dip the leaf in boiling water for one minute. This kills the cells and makes them permeable.',
      '4. Boil the leaf in alcohol in a hot water bath. The alcohol removes the chlorophyll and the leaf turns pale.',
    ].join('\n');
    expect(extractiveAnswer('Why is the leaf boiled in alcohol?', [passage(steps)]).answer).toBe(
      'Boil the leaf in alcohol in a hot water bath. The alcohol removes the chlorophyll and the leaf turns pale.',
    );
    // a paper numbers its questions alike: when one asks, instructs or carries marks, every numbered line is an exam item
    const marked = `${steps}\n5. Find the colour of the leaf. [2 marks]\n6. Outline the stages of the starch test.`;
    expect(extractiveAnswer('What is the colour of the leaf?', [passage(marked)]).answer).not.toMatch(/Find the colour/);
    expect(extractiveAnswer('Why is the leaf boiled in alcohol?', [passage(marked)]).answer).not.toMatch(/Boil the leaf/);
    // so are an exam item's later sentences on its line; an answer's label after it is an answer
    const item = ['8. In a right-angled triangle the two shorter sides are 6 cm and 8 cm. Find the hypotenuse. [3 marks]', 'Answer: by Pythagoras, c² = 36 + 64 = 100, so c = 10 cm.', '9. Two angles of a triangle are 48° and 65°. Find the third angle. [2 marks]'].join('\n');
    expect(extractiveAnswer('What is the hypotenuse of a right-angled triangle with shorter sides 6 cm and 8 cm?', [passage(item)]).answer).toBe('Answer: by Pythagoras, c² = 36 + 64 = 100, so c = 10 cm.');
    expect(extractiveAnswer('What is Ohm\'s law?', [passage('(a) What is Ohm\'s law? Answer: Ohm\'s law says the current is proportional to the voltage.')]).answer).toBe(
      'Answer: Ohm\'s law says the current is proportional to the voltage.',
    );
    // a mark allocation ends its line's sentence, with or without a full stop, and a unit's capital is no initial
    const unpunctuated = ['1. Name the gas released by plants during photosynthesis [1 mark]', 'Answer: Oxygen is released by green plants during photosynthesis.'].join('\n');
    expect(extractiveAnswer('Which gas do plants release during photosynthesis?', [passage(unpunctuated)]).answer).toBe('Answer: Oxygen is released by green plants during photosynthesis.');
    const units = 'The potential difference across the lamp is 12 V. The current through the lamp is 3 A. Its resistance is therefore four ohms.\n\nA fuse protects a circuit from a current that is too large.';
    expect(extractiveAnswer('What is the current through the lamp?', [passage(units)]).answer).toBe('The current through the lamp is 3 A. Its resistance is therefore four ohms.');
    // a capital after a year is an initial
    const premier = 'In 1948 D. S. Senanayake became the first Prime Minister of Ceylon. He is known as the father of the nation.';
    expect(extractiveAnswer('Who became the first Prime Minister of Ceylon?', [passage(premier)]).answer).toMatch(/^In 1948 D\. S\. Senanayake became/);
    // an exam verb counts where an instruction stands ("In the gaseous state" is no instruction), and notes numbered
    // before an exercise that numbers again are notes
    const facts = ['1. Matter exists as a solid, a liquid or a gas.', '2. In the gaseous state, particles move freely and fill their container.', '3. Mercury is the only metal that is liquid at room temperature.'].join('\n');
    expect(extractiveAnswer('Which metal is liquid at room temperature?', [passage(facts)]).answer).toBe('Mercury is the only metal that is liquid at room temperature.');
    const heat = [facts, '4. Metals are good conductors of heat because they have free electrons.', '', 'Exercise', '1. Why does a metal spoon feel cold? [2 marks]', '2. State the three states of matter.'].join('\n');
    expect(extractiveAnswer('Why are metals good conductors of heat?', [passage(heat)]).answer).toBe('Metals are good conductors of heat because they have free electrons.');
    expect(extractiveAnswer('What are the three states of matter?', [passage(heat)]).answer).not.toMatch(/^State the/);
    // steps with the verbs of a procedure are steps ("Draw", "කරන්න"); "true or false" in prose is no instruction
    const circuit = ['1. Connect the lamp, the switch and the cell in a circle.', '2. Close the switch so that current flows through the lamp.', '3. Draw the circuit diagram in your notebook using standard symbols.'].join('\n');
    expect(extractiveAnswer('Where do you draw the circuit diagram?', [passage(circuit)]).answer).toBe('Draw the circuit diagram in your notebook using standard symbols.');
    const boolean = ['A Boolean variable can hold only one of two values, true or false.', '', '1. An AND gate gives an output of 1 only when both of its inputs are 1.', '2. A NOT gate inverts its single input.'].join('\n');
    expect(extractiveAnswer('When does an AND gate give an output of 1?', [passage(boolean)]).answer).toBe('An AND gate gives an output of 1 only when both of its inputs are 1.');
    // "OR" and "NOT" in capitals are the gates' names, not stopwords
    const gates = ['An AND gate gives 1 only when both of its inputs are 1.', 'An OR gate gives 1 when at least one of its inputs is 1.', 'A NOT gate gives the opposite of its input.'].join('\n\n');
    expect(extractiveAnswer('What does an OR gate give?', [passage(gates)]).answer).toBe('An OR gate gives 1 when at least one of its inputs is 1.');
    expect(extractiveAnswer('What does a NOT gate give?', [passage(gates)]).answer).toBe('A NOT gate gives the opposite of its input.');
    // "NOT" as emphasis asks, as "not" does
    const metals = passage('Iron rusts when it is exposed to air and water.\n\nGold does not rust.\n\nDo NOT touch the hot metal with bare hands.');
    expect(extractiveAnswer('Which metal does NOT rust?', [metals]).answer).toMatch(/^Gold does not rust\./);
    expect(extractiveAnswer('What are the stages of the starch test?', [passage(marked)]).answer).not.toMatch(/Outline/);
    const paper = ['Write TRUE or FALSE for each statement.', '1. The unit of electrical resistance is the volt.', '2. The Moon produces its own light like the Sun.'].join('\n');
    expect(extractiveAnswer('What is the unit of electrical resistance?', [passage(paper)]).used).toEqual([]);
    expect(extractiveAnswer('Does the Moon produce its own light?', [passage(paper)]).used).toEqual([]);
    // an instruction's verb in Tamil ("மாற்றுக": convert) makes the line a question, which the line under it answers
    const tamil = ['3. துவித எண் 1101 ஐத் தசம எண்ணாக மாற்றுக.', 'விடை: இடப்பெறுமானங்கள் 8, 4, 2, 1. எனவே 1101 = 8 + 4 + 0 + 1 = 13.'].join('\n');
    expect(extractiveAnswer('துவித எண்ணைத் தசம எண்ணாக மாற்றுவது எப்படி?', [passage(tamil, 'tamil')]).answer).toBe('விடை: இடப்பெறுமானங்கள் 8, 4, 2, 1. எனவே 1101 = 8 + 4 + 0 + 1 = 13.');
    // and what completes an answer under a question comes after that question, not from the answer before it
    const answers = [
      '1. உள்ளீட்டுச் சாதனங்கள் இரண்டு தருக.',
      'விடை: தொடுதிரை (touch screen) உள்ளீட்டுச் சாதனமாகவும் வெளியீட்டுச் சாதனமாகவும் செயற்படுகிறது.',
      '2. மையச் செயற்பாட்டு அலகின் (CPU) பிரதான பகுதிகள் மூன்றையும் குறிப்பிடுக.',
      'விடை: எண்கணித தர்க்க அலகு (ALU) கணிப்புகளையும் ஒப்பீடுகளையும் செய்கிறது.',
    ].join('\n');
    expect(extractiveAnswer('மையச் செயற்பாட்டு அலகின் பகுதிகள் யாவை?', [passage(answers, 'tamil')]).answer).toBe('விடை: எண்கணித தர்க்க அலகு (ALU) கணிப்புகளையும் ஒப்பீடுகளையும் செய்கிறது.');
    // nor from the answer after it
    const english = ['1. Name a device that is both input and output.', 'Answer: A touch screen works as an input device and an output device.', '2. Name the main parts of the CPU.', 'Answer: The CPU has three parts: the ALU, the control unit and the registers.'].join('\n');
    expect(extractiveAnswer('Does a touch screen belong to the CPU?', [passage(english)]).answer).toBe('Answer: A touch screen works as an input device and an output device.');
  });

  test('list items: "+" and "●" bullets, four words in Tamil, a pointing-back line under an item, possessives and "the latter"', () => {
    const glossary = [
      '+ Evaporation is the change of liquid water into water vapour by heat.',
      '+ Condensation is the change of water vapour into liquid droplets on cooling.',
      '● Igneous rocks are formed when hot magma or lava cools and hardens.',
      '● Metamorphic rocks are formed when other rocks are changed by heat and pressure.',
    ].join('\n');
    expect(extractiveAnswer('What is condensation?', [passage(glossary)]).answer).toBe('Condensation is the change of water vapour into liquid droplets on cooling.');
    expect(extractiveAnswer('How are igneous rocks formed?', [passage(glossary)]).answer).toBe('Igneous rocks are formed when hot magma or lava cools and hardens.');
    const kings = ['- வலகம்பா மன்னன் அபயகிரி தாதுகோபத்தைக் கட்டினான்.', '- மகாசேன மன்னன் ஜேதவன தாதுகோபத்தைக் கட்டினான்.'].join('\n');
    expect(extractiveAnswer('அபயகிரி தாதுகோபத்தைக் கட்டிய மன்னன் யார்?', [passage(kings, 'tamil')]).answer).toBe('வலகம்பா மன்னன் அபயகிரி தாதுகோபத்தைக் கட்டினான்.');
    const notes = ['- Transpiration is the loss of water vapour from the leaves of plants.', 'It happens mostly through small pores called stomata.', '- Infiltration is the movement of rain water down into the soil.'].join('\n');
    expect(extractiveAnswer('Through what pores does transpiration happen?', [passage(notes)]).answer).toBe(
      'Transpiration is the loss of water vapour from the leaves of plants. It happens mostly through small pores called stomata.',
    );
    const pointing = [
      'Rulers of Anuradhapura',
      '- The people honoured him as a god for building the Minneriya tank.',
      '- The latter built the rock fortress of Sigiriya on a huge granite rock.',
      '- அவனது படைகள் பொலன்னறுவையை ஆக்கிரமித்து பல விகாரைகளை அழித்தன.',
      '- ඔහුගේ ප්‍රසිද්ධම ශිලා ලිපිය පොළොන්නරුවේ ඇති ගල්පොතයි.',
    ].join('\n');
    expect(extractiveAnswer('Who was honoured as a god for building the Minneriya tank?', [passage(pointing)]).used).toEqual([]);
    expect(extractiveAnswer('Who built the rock fortress of Sigiriya?', [passage(pointing)]).used).toEqual([]);
    expect(extractiveAnswer('பொலன்னறுவையை ஆக்கிரமித்த படைகள் எவை?', [passage(pointing, 'tamil')]).used).toEqual([]);
    expect(extractiveAnswer('ගල්පොත ශිලා ලිපිය කොහේද?', [passage(pointing, 'sinhala')]).used).toEqual([]);
    // one line under an item goes on with it when it opens pointing back, not the paragraph after the list
    const list = ['- Condensation is the change of water vapour into liquid droplets on cooling.', 'These processes repeat all the time. Clouds form from droplets.', 'They grow. Rain falls when the droplets in clouds grow heavy.'].join('\n');
    expect(extractiveAnswer('Why does rain fall from clouds?', [passage(list)]).answer).toBe('Rain falls when the droplets in clouds grow heavy.');
    expect(extractiveAnswer('Through what pores does transpiration happen?', [passage(notes.replace('\nIt', ' \n  It'))]).answer).toMatch(/^Transpiration is/);
    // a bilingual item whose first sentence is a label answers from its sentence in the question's language
    const labelled = passage('- RAM මතකය. RAM (Random Access Memory) is the part of a computer that works as its temporary memory.', 'sinhala');
    expect(extractiveAnswer('What is RAM in a computer?', [labelled]).answer).toBe('RAM (Random Access Memory) is the part of a computer that works as its temporary memory.');
    // a relative "that" points back to nothing
    const cells = ['Working with cells', '- The cell that is selected is called the active cell.'].join('\n');
    expect(extractiveAnswer('What is the active cell?', [passage(cells)]).answer).toBe('The cell that is selected is called the active cell.');
  });

  test("a sentence is Sinhala or Tamil when a good share of its letters are, and English otherwise; the question's language answers when any sentence has it", () => {
    // a worked answer's symbols are Latin letters, its words Sinhala; under its exam item it answers, and the next item's answer stays out
    const paper = [
      '(ආ) 12 V බැටරියකට 4 Ω ප්‍රතිරෝධකයක් සම්බන්ධ කළ විට ගලන ධාරාව ගණනය කරන්න.',
      'පිළිතුර: I = V/R = 12/4 = 3 A.',
      '(ඉ) ජීවීන්ට ප්‍රභාසංශ්ලේෂණය වැදගත් වන්නේ ඇයි? කරුණු දෙකක් දෙන්න.',
      'පිළිතුර: සෑම ආහාර දාමයක්ම ආරම්භ වන්නේ නිෂ්පාදකයන්ගෙනි.',
    ].join('\n\n');
    expect(extractiveAnswer('12 V බැටරියකට 4 Ω ප්‍රතිරෝධකයක් සම්බන්ධ කළ විට ගලන ධාරාව කොපමණද?', [passage(paper, 'sinhala')]).answer).toBe('පිළිතුර: I = V/R = 12/4 = 3 A.');
    expect(extractiveAnswer('ජීවීන්ට ප්‍රභාසංශ්ලේෂණය වැදගත් වන්නේ ඇයි?', [passage(paper, 'sinhala')]).answer).toBe('පිළිතුර: සෑම ආහාර දාමයක්ම ආරම්භ වන්නේ නිෂ්පාදකයන්ගෙනි.');
    const factors = ['(ඈ) ප්‍රභාසංශ්ලේෂණ වේගයට බලපාන සාධක තුනක් සඳහන් කරන්න.', 'පිළිතුර: ආලෝක තීව්‍රතාව, කාබන් ඩයොක්සයිඩ් සාන්ද්‍රණය සහ උෂ්ණත්වය.', paper].join('\n\n');
    expect(extractiveAnswer('ප්‍රභාසංශ්ලේෂණ වේගයට බලපාන සාධක මොනවාද?', [passage(factors, 'sinhala')]).answer).toBe('පිළිතුර: ආලෝක තීව්‍රතාව, කාබන් ඩයොක්සයිඩ් සාන්ද්‍රණය සහ උෂ්ණත්වය.');
    const glossed = [
      'Photosynthesis (ප්‍රභාසංශ්ලේෂණය) is the process by which green plants make their own food from carbon dioxide and water.',
      'ප්‍රභාසංශ්ලේෂණයේදී ශාක කාබන් ඩයොක්සයිඩ් සහ ජලය භාවිතයෙන් ග්ලූකෝස් නිපදවයි.',
    ].join('\n\n');
    expect(extractiveAnswer('ප්‍රභාසංශ්ලේෂණයේදී ශාක නිපදවන්නේ කුමක්ද?', [passage(glossed, 'sinhala')]).answer).toBe('ප්‍රභාසංශ්ලේෂණයේදී ශාක කාබන් ඩයොක්සයිඩ් සහ ජලය භාවිතයෙන් ග්ලූකෝස් නිපදවයි.');
    // an expansion in parentheses is not the sentence's language
    const cpu = ['CPU (Central Processing Unit - Arithmetic Logic Unit and Control Unit) යනු පරිගණකයේ මොළයයි.', 'CPU එක ගැන වැඩි විස්තර පසුව ඉගෙන ගනිමු.'].join('\n\n');
    expect(extractiveAnswer('CPU යනු පරිගණකයේ කුමක්ද?', [passage(cpu, 'sinhala')]).answer).toBe('CPU (Central Processing Unit - Arithmetic Logic Unit and Control Unit) යනු පරිගණකයේ මොළයයි.');
    // a glossary's entries on their lines are apart: the answer does not go on into the next one
    const glossary = ['Ion: an atom or group of atoms that carries an electric charge.', 'Isotope - atoms of the same element with different numbers of neutrons.'].join('\n');
    expect(extractiveAnswer('What is an ion?', [passage(glossary)]).answer).toBe('Ion: an atom or group of atoms that carries an electric charge.');
    // every chunk tagged Sinhala: the English sentence still answers the English question
    expect(extractiveAnswer('What is photosynthesis?', [passage(glossed, 'sinhala')]).answer).toBe(
      'Photosynthesis (ප්‍රභාසංශ්ලේෂණය) is the process by which green plants make their own food from carbon dioxide and water.',
    );
  });

  test('exam items in any script and questions on their own line are never quoted; a question inside a paragraph may be', () => {
    const paper = [
      '(අ) ප්‍රභාසංශ්ලේෂණය සිදු වන ශාක සෛල ඉන්ද්‍රියිකාව නම් කරන්න.',
      'ප්‍රභාසංශ්ලේෂණය සිදු වන ඉන්ද්‍රියිකාව කුමක්ද?',
      'පිළිතුර: ප්‍රභාසංශ්ලේෂණය සිදු වන්නේ හරිතලවයේ ය.',
    ].join('\n');
    expect(extractiveAnswer('ප්‍රභාසංශ්ලේෂණය සිදු වන ඉන්ද්‍රියිකාව කුමක්ද?', [passage(paper, 'sinhala')]).answer).toBe(
      'පිළිතුර: ප්‍රභාසංශ්ලේෂණය සිදු වන්නේ හරිතලවයේ ය.',
    );
    const paragraph = 'Transgenic animals have one new gene. Could a clone, a genetically exact copy of an organism, be made? Nobody has tried.';
    expect(extractiveAnswer('What term means a genetically exact copy of an organism?', [passage(paragraph)]).answer).toBe(
      'Could a clone, a genetically exact copy of an organism, be made? Nobody has tried.',
    );
    // a question in a paragraph is answered by what follows it, not by the sentence before, even when it points back
    const asked = 'Diamond is the hardest natural material known. Yet diamond is just pure carbon. What is special about this element that makes diamond so hard? Bonds. Chemical bonds. Each atom has four.';
    expect(extractiveAnswer('Which property of diamond makes it so hard?', [passage(asked)]).answer).toBe(
      'What is special about this element that makes diamond so hard? Bonds. Chemical bonds.',
    );
    // so is one that starts a PDF's line with prose after it on the line; alone on its line it is an exam question's
    const wrapped = 'Diamond is the hardest natural material known. Yet diamond is just pure carbon.\nWhat is special about this element that makes diamond so hard? Bonds. Chemical bonds.\nEach atom has four.';
    expect(extractiveAnswer('Which property of diamond makes it so hard?', [passage(wrapped)]).answer).toBe(
      'What is special about this element that makes diamond so hard? Bonds. Chemical bonds.',
    );
    const alone = 'Diamond is the hardest natural material known. Yet diamond is just pure carbon.\nWhat is special about this element that makes diamond so hard?\nBonds. Chemical bonds.';
    expect(extractiveAnswer('Which property of diamond makes it so hard?', [passage(alone)]).answer).not.toMatch(/^What is special/);
  });

  test('the answer under a question on its own line (an exam item, a worked example) is judged with that question\'s words', () => {
    // the answer shares none of the question's words but "Ohm": without its exam item it covers too little
    const paper = [
      '## ප්‍රශ්නය 1: විද්‍යුතය',
      '(අ) ඕම් නියමය ප්‍රකාශ කරන්න.',
      'පිළිතුර: උෂ්ණත්වය නියතව පවතින විට සන්නායකයක් හරහා ගලන ධාරාව එහි දෙකෙළවර අතර විභව අන්තරයට අනුලෝමව සමානුපාතික වේ. එය V = IR ලෙස ලියනු ලැබේ.',
      '(ආ) 12 V බැටරියකට 4 Ω ප්‍රතිරෝධකයක් සම්බන්ධ කළ විට ගලන ධාරාව ගණනය කරන්න.',
    ].join('\n');
    expect(extractiveAnswer('ඕම් නියමය ප්‍රකාශ කරන්න.', [passage(paper, 'sinhala')]).answer).toBe(
      'පිළිතුර: උෂ්ණත්වය නියතව පවතින විට සන්නායකයක් හරහා ගලන ධාරාව එහි දෙකෙළවර අතර විභව අන්තරයට අනුලෝමව සමානුපාතික වේ. එය V = IR ලෙස ලියනු ලැබේ.',
    );
    // a worked example's answer starts with its formula; the exercise's instruction above has the same words
    const worked = [
      'ஒரு கணியத்தின் குறித்த சதவீதத்தைக் காண, சதவீதத்தைப் பின்னமாக எழுதிக் கணியத்தால் பெருக்கவும்.',
      'உதாரணம் 1: 450 ரூபாவின் 20% எவ்வளவு?',
      '20/100 × 450 = 90. எனவே விடை 90 ரூபா.',
    ].join('\n');
    expect(extractiveAnswer('450 ரூபாவின் 20% எவ்வளவு?', [passage(worked, 'tamil')]).answer).toBe('20/100 × 450 = 90. எனவே விடை 90 ரூபா.');
    // the exam item's statement before its question, on its line, is the question's too
    const interest = [
      '(a) Sunil deposits Rs. 50,000 in a bank that pays compound interest at 10% per year. How much will be in the account after 2 years?',
      'Answer: after the first year the amount is 50,000 × 110/100 = Rs. 55,000. After the second year it is 55,000 × 110/100 = Rs. 60,500.',
      'Simple interest is paid on the principal only.',
    ].join('\n');
    expect(extractiveAnswer('How much does a deposit earn at compound interest?', [passage(interest)]).answer).toMatch(/^Answer: after the first year/);
    // a numbered step neither asks nor instructs: the line under it is not its answer
    const steps = ['(b) Put the leaf in warm alcohol to remove the chlorophyll.', 'The leaf turns blue-black when iodine is added.', 'Alcohol removes chlorophyll from the leaf.'].join('\n');
    expect(extractiveAnswer('Why is the leaf put in alcohol?', [passage(steps)]).answer).toBe('Alcohol removes chlorophyll from the leaf.');
  });

  test('a sentence of the passage with question words that the best one lacks joins the answer, in the passage\'s order, within 60 words', () => {
    const kidneys =
      'Kidneys filter blood in three steps. Most solutes are filtered out first. ' +
      'In the loop of Henle, the filtrate exchanges solutes and water with the renal medulla. Water is reabsorbed during this step.';
    const question = 'Nephrons and the loop of Henle are part of blood filtration by what organs?';
    expect(extractiveAnswer(question, [passage(kidneys)]).answer).toBe(
      'Kidneys filter blood in three steps. In the loop of Henle, the filtrate exchanges solutes and water with the renal medulla. Water is reabsorbed during this step.',
    );
    // one that would take the answer past 60 words stays out, and so does one that adds no word the answer lacks
    const long = `Kidneys filter blood in three steps, ${'slowly and '.repeat(25)}steadily. In the loop of Henle, the filtrate exchanges solutes and water with the renal medulla.`;
    expect(extractiveAnswer(question, [passage(long)]).answer).toBe('In the loop of Henle, the filtrate exchanges solutes and water with the renal medulla.');
    const nothingNew = 'The loop of Henle is long. In the loop of Henle, the filtrate exchanges solutes and water with the renal medulla.';
    expect(extractiveAnswer(question, [passage(nothingNew)]).answer).toBe('In the loop of Henle, the filtrate exchanges solutes and water with the renal medulla.');
  });

  test('at most three sentences, all from the one passage that covers the question best', () => {
    const short = 'Plants need light. Light powers photosynthesis. Leaves catch it. Roots hold soil. Stems carry water.';
    const drafted = extractiveAnswer('What do plants need for photosynthesis?', [passage('Photosynthesis is a word.'), passage(short)]);
    expect(drafted).toEqual({ answer: 'Plants need light. Light powers photosynthesis. Leaves catch it.', used: [1] });
  });

  test('Sinhala and Tamil: a name\'s initial does not end a sentence, and । ends one', () => {
    // three sentences at most: the one with the initial counts once
    const text = 'ග්‍රාන්ට් පාලනය අල්ලා ගත්තේය. අණ දෙන නිලධාරියා යුලිසස් එස්. ග්‍රාන්ට් විය. ඔහු පසුව ජනාධිපති විය. ඔහු 1885 දී මිය ගියේය.';
    expect(extractiveAnswer('අණ දෙන නිලධාරියා කවුද?', [passage(text, 'sinhala')]).answer).toBe(
      'අණ දෙන නිලධාරියා යුලිසස් එස්. ග්‍රාන්ට් විය. ඔහු පසුව ජනාධිපති විය. ඔහු 1885 දී මිය ගියේය.',
    );
    const tamil = 'கங்கை நீண்ட நதி। காவிரி தென்னிந்தியாவில் ஓடுகிறது। மழை பெய்கிறது';
    expect(extractiveAnswer('காவிரி எங்கே ஓடுகிறது?', [passage(tamil, 'tamil')]).answer).toBe('காவிரி தென்னிந்தியாவில் ஓடுகிறது।');
  });

  test('inflected words match by stem or shared beginning, against a higher-ranked passage with the plain words', () => {
    const sinhala = extractiveAnswer('ආර්මේනියාවේ කතා කරන භාෂාව කුමක්ද?', [
      passage('ප්‍රංශයේ ජනයා ප්‍රංශ භාෂාව කතා කරති.', 'sinhala'),
      passage('ආර්මේනියාව තුළ ජනයා ආර්මේනියානු භාෂාව කතා කරති.', 'sinhala'),
    ]);
    expect(sinhala).toEqual({ answer: 'ආර්මේනියාව තුළ ජනයා ආර්මේනියානු භාෂාව කතා කරති.', used: [1] });
    // by stem: "cities" and "city"
    expect(extractiveAnswer('Which cities flooded?', [passage('Rivers flooded in spring.'), passage('The city flooded in 1990.')]).used).toEqual([1]);
    // by a shared beginning: "photosynthesis" and "photosynthesize"
    const english = extractiveAnswer('Which plants have lost the ability of photosynthesis?', [
      passage('Some plants lost their leaves and the ability to grow.'),
      passage('A few parasitic plants lost the ability to photosynthesize.'),
    ]);
    expect(english.answer).toBe('A few parasitic plants lost the ability to photosynthesize.');
  });

  test('question words and Sinhala function words do not count, nor Tamil asking words: a sentence sharing only them is no answer', () => {
    // "විසින්" (by) and "කළේ" (did) are all the first passage shares with the question
    const drafted = extractiveAnswer('යාරොස්ලාව් විසින් ඉදි කළේ කුමක්ද?', [
      passage('මෙම කාර්යය රජය විසින් කළේ ඉක්මනින් ය.', 'sinhala'),
      passage('යාරොස්ලාව් කියෙව්හි දෙව්මැදුරක් තැනීය.', 'sinhala'),
    ]);
    expect(drafted).toEqual({ answer: 'යාරොස්ලාව් කියෙව්හි දෙව්මැදුරක් තැනීය.', used: [1] });
    // Tamil's asking words, also before a doubled consonant ("எதனைக்"), are no content either
    const tamil = extractiveAnswer('நியூட்டன் எதனைக் கண்டுபிடித்தார்?', [
      passage('எதனைக் கேட்பது என்று தெரியவில்லை.', 'tamil'),
      passage('நியூட்டன் ஈர்ப்பு விசையை விளக்கினார்.', 'tamil'),
    ]);
    expect(tamil.used).toEqual([1]);
  });

  test('between sentences that cover the question equally, the one whose passage covers more of it wins over rank', () => {
    const drafted = extractiveAnswer('Which cathedral did Yaroslav have in Kiev?', [
      passage('The cathedral in Kiev burned.'),
      passage('Yaroslav ruled the city for years. The cathedral in Kiev was his.'),
    ]);
    // (the sentence before it has the question's Yaroslav, which the best one lacks)
    expect(drafted).toEqual({ answer: 'Yaroslav ruled the city for years. The cathedral in Kiev was his.', used: [1] });
  });

  test('"does" and "not" of the question are no content: the sentence with its subject wins', () => {
    const drafted = extractiveAnswer('What does an invertebrate, like a snail, not have?', [
      passage('Snails are an example of invertebrates, animals without a backbone.'),
      passage('It does not help to classify not just the insects but all invertebrates.'),
    ]);
    expect(drafted).toEqual({ answer: 'Snails are an example of invertebrates, animals without a backbone.', used: [0] });
  });

  test('between sentences with the same words, the one that has them in the question\'s order wins', () => {
    const drafted = extractiveAnswer('When the earth is between the moon and the sun, what type of moon shows?', [
      passage(
        'When the Moon moves between Earth and the Sun, the side facing Earth is dark. ' +
          'A full moon occurs when the whole side facing Earth is lit. This happens when Earth is between the Moon and the Sun.',
      ),
    ]);
    expect(drafted.answer).toBe('A full moon occurs when the whole side facing Earth is lit. This happens when Earth is between the Moon and the Sun.');
  });

  test('a past paper\'s next exam item, on the line under the answer, is not quoted with it', () => {
    const text = [
      '--- PAGE 1 ---',
      '(a) Sunil deposits 50,000 rupees at 10% compound interest a year. How much will he have after 2 years?',
      'Answer: after the first year he has 55,000 rupees and after the second 60,500. The compound interest earned is 10,500',
      'rupees.',
      '(b) How much would he have earned with simple interest at the same rate for 2 years?',
    ].join('\n');
    const drafted = extractiveAnswer('How much compound interest do 50,000 rupees earn at 10% a year?', [passage(text)]);
    // the line before has the question's year, which the best sentence lacks: it is quoted too
    expect(drafted.answer).toBe('Answer: after the first year he has 55,000 rupees and after the second 60,500. The compound interest earned is 10,500 rupees.');
  });

  test('an abbreviation in parentheses does not end a sentence, so a heading with one stays a heading', () => {
    const text = [
      '--- PAGE 1 ---',
      'මහා පරාක්‍රමබාහු රජු (ක්‍රි. ව. 1153–1186)',
      'පරාක්‍රම සමුද්‍රය පොළොන්නරුවේ ඇති විශාල ජලාශයකි. එය වැව් කිහිපයක් එකට යා කිරීමෙන් සාදන ලදී.',
    ].join('\n');
    const drafted = extractiveAnswer('මහා පරාක්‍රමබාහු රජු සෑදූ ජලාශය කුමක්ද?', [passage(text, 'sinhala')]);
    expect(drafted.answer).toBe('පරාක්‍රම සමුද්‍රය පොළොන්නරුවේ ඇති විශාල ජලාශයකි. එය වැව් කිහිපයක් එකට යා කිරීමෙන් සාදන ලදී.');
    expect(extractiveAnswer('How long is the Mahaweli river?', [passage('The Mahaweli river (approx. 335 km long) is the longest. It flows north-east.')]).answer).toBe(
      'The Mahaweli river (approx. 335 km long) is the longest. It flows north-east.',
    );
  });

  test('an exam paper\'s mark allocations are neither quoted nor matched', () => {
    const drafted = extractiveAnswer('How do you work out the mean of a set of marks?', [
      passage('--- PAGE 1 ---\nA fair die numbered 1 to 6 is rolled once by each pupil. [4 marks]'),
      passage('--- PAGE 1 ---\nThe mean is the total divided by the number of values. (ලකුණු 2)'),
    ]);
    expect(drafted).toEqual({ answer: 'The mean is the total divided by the number of values.', used: [1] });
    // after a question's mark, the answer on the next line is still judged with the question's words (it found nothing)
    const paper = (tag: string, label: string, items: [string, string][]) => passage(items.map(([q, a], i) => `${i + 1}. ${q} ${tag}\n${label}: ${a}`).join('\n'), label === 'Answer' ? 'english' : 'sinhala');
    const english = paper('[1 mark]', 'Answer', [['When did Buddhism come to Sri Lanka?', 'In 247 B.C.'], ['Who built Sigiriya?', 'King Kashyapa, in the 5th century A.D.']]);
    expect(extractiveAnswer('Who built Sigiriya?', [english]).answer).toBe('Answer: King Kashyapa, in the 5th century A.D.');
    const sinhala = paper('[ලකුණු 1]', 'පිළිතුර', [['ලංකාවට බුදුදහම පැමිණියේ කවදාද?', 'ක්‍රි.පූ. 247 දී.'], ['සීගිරිය ඉදි කළේ කවුද?', 'කාශ්‍යප රජු ක්‍රි.ව. 5 වන සියවසේදී.']]);
    expect(extractiveAnswer('සීගිරිය ඉදි කළේ කවුද?', [sinhala]).answer).toBe('පිළිතුර: කාශ්‍යප රජු ක්‍රි.ව. 5 වන සියවසේදී.');
  });

  test('"Rs." does not end a sentence, and an exam item after a formula\'s "B." is no initial\'s name', () => {
    const rupees = extractiveAnswer('How much simple interest is earned?', [passage('The simple interest earned is Rs. 10,000. Compound interest is larger.')]);
    expect(rupees.answer).toBe('The simple interest earned is Rs. 10,000. Compound interest is larger.');
    const text = "--- PAGE 1 ---\nIn Boolean algebra, the XOR gate gives A XOR B = A.B' + A'.B.\n\n(b) State De Morgan's laws.";
    const formula = extractiveAnswer('What is the XOR gate in Boolean algebra?', [passage(text)]).answer;
    expect(formula).toMatch(/^In Boolean algebra, the XOR gate gives A XOR B = A\.B' \+ A'\. ?B\.$/);
  });

  test('the quick start\'s question: the sentence on what photosynthesis uses, and the one that names the raw materials', () => {
    const page = readFileSync('samples/curriculum/src/grade10-science-photosynthesis.md', 'utf8').split('--- PAGE 2 ---')[0]!;
    const drafted = extractiveAnswer('What do plants need for photosynthesis?', [passage(page)]);
    expect(drafted.answer).toBe(
      'In photosynthesis, a plant uses light energy to join simple raw materials into sugar. ' +
        'The raw materials are carbon dioxide, which the plant takes in from the air, and water, which the roots absorb from the soil.',
    );
  });

  test('an English plural or inflection counts as the question\'s word itself', () => {
    const drafted = extractiveAnswer('Why do cells divide?', [
      passage('Cells are small. They divide to grow.'),
      passage('A cell divides when it has grown.'),
    ]);
    expect(drafted.answer).toBe('A cell divides when it has grown.');
  });

  test('say plainly when nothing relevant was found, with nothing to cite', () => {
    expect(extractiveAnswer('What is osmosis?', [passage('Volcanoes erupt lava.')])).toEqual({
      answer: 'No relevant passages were found in the indexed curriculum documents for this question.',
      used: [],
    });
    expect(extractiveAnswer('ஒஸ்மோசிஸ் என்றால் என்ன?', []).answer).toMatch(/[\u0B80-\u0BFF]/);
  });

  test("a list's items are judged with the heading or question right above the list, as prose under one is", () => {
    const english = passage('Photosynthesis takes place in the chloroplasts of leaf cells.\n\nImportance of photosynthesis\n• Green plants make the food on which all animals depend.\n• Green plants give out the oxygen that animals breathe.');
    // (either item: both have the heading's words alone)
    expect(extractiveAnswer('Why is photosynthesis important?', [english]).answer).toMatch(/^Green plants (make the food|give out the oxygen)[^•]*\.$/);
    const tamil = passage('ஒளித்தொகுப்பு இலைகளின் பச்சையவுருமணிகளில் நடைபெறுகிறது.\n\nஒளித்தொகுப்பின் முக்கியத்துவம்\n• விலங்குகள் அனைத்தும் உணவுக்காகத் தாவரங்களில் தங்கியுள்ளன.\n• விலங்குகள் சுவாசிக்கும் ஒட்சிசனைத் தாவரங்கள் வெளியிடுகின்றன.', 'tamil');
    expect(extractiveAnswer('ஒளித்தொகுப்பு ஏன் முக்கியமானது?', [tamil]).answer).toMatch(/^விலங்குகள் (அனைத்தும்|சுவாசிக்கும்)[^•]*\.$/);
    // a list under prose is judged by its own words
    const underProse = passage('Plants need light.\n• Green plants make the food on which all animals depend.');
    expect(extractiveAnswer('Why is photosynthesis important?', [underProse]).used).toEqual([]);
  });

  test("a short line that ends a sentence does not end its paragraph: the next line may complete it, or point back to it", () => {
    const liver = passage('The kidneys are a pair of bean-shaped organs at the back of the abdominal cavity.\nThe functions of the liver are given below.\nThe liver produces bile, stores glycogen and breaks down toxic substances.');
    expect(extractiveAnswer('What are the functions of the liver?', [liver]).answer).toMatch(/The liver produces bile/);
    const hcf = passage('To find the highest common factor, list the factors of each number and pick the largest shared one.\nExample 3: Find the HCF of 12 and 18.\nHCF = 6.');
    expect(extractiveAnswer('What is the HCF of 12 and 18?', [hcf]).answer).toMatch(/HCF = 6\./);
    // a line that points back goes on with the sentence before it, also under a list item
    const osmosis = passage('Water moves into the roots by a process that is called osmosis.\nIt happens in root hair cells, which have a large surface.\nAll living cells need water to stay alive and healthy.');
    expect(extractiveAnswer('What is osmosis?', [osmosis]).answer).toMatch(/called osmosis\. It happens in root hair cells/);
    const transpiration = passage('- Transpiration is the loss of water from leaves.\nIt happens mostly through small pores called stomata on the underside of leaves.\n- Infiltration is the soaking of water into the soil.');
    expect(extractiveAnswer('Where does transpiration happen mostly?', [transpiration]).answer).toMatch(/^Transpiration is the loss of water from leaves\. It happens/);
  });

  test('a list a sentence announces (it ends in a colon) answers with its items, also phrases without closing punctuation', () => {
    const sinhala = passage('මිරිදිය සීමිත සම්පතකි. ජලය සංරක්ෂණය සඳහා අපට කළ හැකි දේ:\n• වැසි ජලය ටැංකිවල එකතු කර භාවිත කිරීම\n• කරාම වසා තබා ජලය නාස්ති නොකිරීම', 'sinhala');
    expect(extractiveAnswer('ජලය සංරක්ෂණය සඳහා අපට කළ හැකි දේ මොනවාද?', [sinhala]).answer).toMatch(/^(වැසි ජලය ටැංකිවල|කරාම වසා තබා)[^•]*කිරීම$/);
    const english = passage('Fresh water is scarce in the dry zone. Ways we can save water at home:\n- Collecting rain water from the roof in tanks\n- Closing the taps while we brush our teeth');
    expect(extractiveAnswer('How can we save water at home?', [english]).answer).toMatch(/^(Collecting rain water|Closing the taps)/);
    // an instruction's or a question's list is no answer, nor are its phrases, nor a title's
    // ("Contents:", a question's stem on its own line) or objectives' ("describe ...")
    const exercise = passage('Water is needed by all living things.\nList three ways we can save water at home:\n- Ways of saving water at home in the dry zone\n- What do we save water at home for?');
    expect(extractiveAnswer('How can we save water at home?', [exercise]).answer).not.toMatch(/Ways of saving|What do we/);
    const ownLine = passage('Fresh water is scarce in the dry zone.\nWe can save water at home in these ways:\n- Collecting rain water from the roof in tanks\n- Closing the taps while we brush our teeth');
    expect(extractiveAnswer('How can we save water at home?', [ownLine]).answer).toMatch(/^(Collecting rain water|Closing the taps)/);
    const excel = passage('Excel opens with an empty workbook. The main parts of the Excel window are:\n- Name Box, which shows the address of the active cell\n- Formula Bar, which shows what the active cell holds');
    expect(extractiveAnswer('What does the Name Box show?', [excel]).answer).toBe('Name Box, which shows the address of the active cell');
    const contents = passage('Contents:\n- Structure and function of the cell membrane\n- The nucleus and its parts in plant cells\n\nThe cell membrane is made of a double layer of lipids.');
    expect(extractiveAnswer('What is the structure of the cell membrane?', [contents]).answer).toBe('The cell membrane is made of a double layer of lipids.');
    const stem = passage('The gas that plants take in during photosynthesis is:\n- oxygen that is given out by the leaves in daylight\n- carbon dioxide that is taken in through the stomata');
    expect(extractiveAnswer('What gas do plants take in during photosynthesis?', [stem]).answer).not.toMatch(/^oxygen/);
    const outcomes = passage('This lesson is about the heart. By the end of it you will be able to:\n• describe the structure of the human heart and its four chambers\n\nThe heart pumps blood around the body.');
    expect(extractiveAnswer('What is the structure of the heart?', [outcomes]).answer).not.toMatch(/^describe/);
  });

  test("a list under a question is its options or instructions, judged by their own words; a list's intro line ends no block", () => {
    const options = passage('5. What is the function of the xylem in a plant?\n(1) Making food in the leaves by day.\n(2) Giving out oxygen made during the day.\n(3) Taking in carbon dioxide at night.\n\nXylem vessels carry water and minerals from the roots to the leaves.');
    expect(extractiveAnswer('What is the function of the xylem in a plant?', [options]).answer).toBe('Xylem vessels carry water and minerals from the roots to the leaves.');
    const gases = passage('Which gas do plants give out during photosynthesis?\n• Carbon dioxide is given out during respiration at night.\n• Oxygen is given out during photosynthesis in daylight.');
    expect(extractiveAnswer('Which gas do plants give out during photosynthesis?', [gases]).answer).toBe('Oxygen is given out during photosynthesis in daylight.');
    const kidneys = passage(
      'The kidneys are the organs that filter the blood.\nThis happens in two steps:\n• Blood is pressed through tiny filters in the glomerulus.\n• Useful substances such as glucose are taken back.\nThe urine formed flows down to the bladder, where it is stored until it is passed out.',
    );
    expect(extractiveAnswer('Which organs filter the blood, and where is urine stored?', [kidneys]).answer).toMatch(/kidneys.*bladder/);
  });

  test('a question asking what something is prefers the sentence that says what it is, in three languages', () => {
    const english = passage('Photosynthesis happens in the leaves.\n\nPhotosynthesis is the process by which green plants make glucose from carbon dioxide and water using light.');
    expect(extractiveAnswer('What is photosynthesis?', [english]).answer).toMatch(/^Photosynthesis is the process/);
    // not asking what it is: the shorter sentence still wins
    expect(extractiveAnswer('Where does photosynthesis happen?', [english]).answer).toBe('Photosynthesis happens in the leaves.');
    const sinhala = passage('CPU එක ගැන මෙම පාඩමේ ඉගෙන ගනිමු.\n\nCPU (Central Processing Unit) යනු පරිගණකයේ දත්ත සකසන ප්‍රධාන කොටසයි.', 'sinhala');
    expect(extractiveAnswer('CPU යනු කුමක්ද?', [sinhala]).answer).toMatch(/^CPU \(Central Processing Unit\) යනු/);
    const tamil = passage('ஒளித்தொகுப்பு இலைகளில் நடைபெறுகிறது.\n\nஒளித்தொகுப்பு என்பது தாவரங்கள் ஒளியைப் பயன்படுத்தி உணவு தயாரிக்கும் செயல்முறை ஆகும்.', 'tamil');
    expect(extractiveAnswer('ஒளித்தொகுப்பு என்றால் என்ன?', [tamil]).answer).toMatch(/^ஒளித்தொகுப்பு என்பது/);
    // a subject with more than the question's words is about something else, and so is "X is <adjective>",
    // "What does X do?", and Tamil's "X ... என்றால்" (if)
    const rate = passage('The rate of photosynthesis in bright summer light is high.\n\nPhotosynthesis happens in the leaves.');
    expect(extractiveAnswer('What is photosynthesis?', [rate]).answer).toBe('Photosynthesis happens in the leaves.');
    const sunny = passage('Photosynthesis makes glucose from carbon dioxide and water using light.\n\nPhotosynthesis is faster on sunny days than on cloudy days in most plants.');
    expect(extractiveAnswer('What is photosynthesis?', [sunny]).answer).toMatch(/^Photosynthesis makes glucose/);
    const heart = passage('The heart is a muscular organ about the size of a fist.\n\nThe heart pumps blood.');
    expect(extractiveAnswer('What does the heart do?', [heart]).answer).toBe('The heart pumps blood.');
    const heat = passage('ஒரு பொருளின் சூட்டின் அளவு வெப்பநிலை ஆகும்.\n\nவெப்பநிலை அதிகம் என்றால் குளத்திலுள்ள நீர் மிக விரைவாக ஆவியாகி வெளியேறும்.', 'tamil');
    expect(extractiveAnswer('வெப்பநிலை என்றால் என்ன?', [heat]).answer).toBe('ஒரு பொருளின் சூட்டின் அளவு வெப்பநிலை ஆகும்.');
  });

  test('a question asking with "not" prefers the sentence that says "not", in three languages', () => {
    const english = passage('Metals such as copper conduct electricity.\n\nPlastic, rubber and dry wood do not conduct electricity.');
    expect(extractiveAnswer('Which materials do not conduct electricity?', [english]).answer).toBe('Plastic, rubber and dry wood do not conduct electricity.');
    // asking without "not" (or with "not only"), the shorter sentence still wins
    expect(extractiveAnswer('Which materials conduct electricity?', [english]).answer).toBe('Metals such as copper conduct electricity.');
    expect(extractiveAnswer('Which materials not only conduct electricity but also bend?', [english]).answer).toBe('Metals such as copper conduct electricity.');
    const sinhala = passage('ලෝහ විදුලිය සන්නයනය කරයි.\n\nප්ලාස්ටික් හා රබර් විදුලිය සන්නයනය නොකරයි.', 'sinhala');
    expect(extractiveAnswer('විදුලිය සන්නයනය නොකරන ද්‍රව්‍ය මොනවාද?', [sinhala]).answer).toBe('ප්ලාස්ටික් හා රබර් විදුලිය සන්නයනය නොකරයි.');
    // නොහොත් ("or") is no negation
    expect(extractiveAnswer('විදුලිය නොහොත් ධාරාව සන්නයනය කරන්නේ මොනවාද?', [sinhala]).answer).toBe('ලෝහ විදුලිය සන්නයනය කරයි.');
    const tamil = passage('உலோகங்கள் மின்சாரத்தைக் கடத்தும்.\n\nபிளாஸ்டிக் மற்றும் இறப்பர் மின்சாரத்தைக் கடத்தாது.', 'tamil');
    expect(extractiveAnswer('மின்சாரத்தைக் கடத்தாத பொருட்கள் எவை?', [tamil]).answer).toBe('பிளாஸ்டிக் மற்றும் இறப்பர் மின்சாரத்தைக் கடத்தாது.');
    // அல்லது ("or") is none either
    expect(extractiveAnswer('மின்சாரத்தை அல்லது வெப்பத்தைக் கடத்தும் பொருட்கள் எவை?', [tamil]).answer).toBe('உலோகங்கள் மின்சாரத்தைக் கடத்தும்.');
    // only a negation of the word the question negates counts: of "renewable" ("non-renewable" too), not of "run out" or "conduct"
    const energy = passage('Coal is a non-renewable source of energy.\n\nSolar energy is a renewable source of energy that does not run out.');
    expect(extractiveAnswer('Which of the following is not a renewable source of energy?', [energy]).answer).toBe('Coal is a non-renewable source of energy.');
    const ice = passage('Ice floats on water because it is less dense than water.\n\nIce does not conduct heat well.');
    expect(extractiveAnswer('Why does ice not sink in water?', [ice]).answer).toBe('Ice floats on water because it is less dense than water.');
    // "නො" apart from its verb, and Tamil's -வதில்லை, count; නොයෙකුත් ("various") and மட்டுமல்லாமல் ("not only") do not
    const spaced = passage('නොයෙකුත් ලෝහ විදුලිය සන්නයනය කරයි.\n\nප්ලාස්ටික් විදුලිය සන්නයනය නො කරයි.', 'sinhala');
    expect(extractiveAnswer('විදුලිය සන්නයනය නොකරන ද්‍රව්‍ය මොනවාද?', [spaced]).answer).toBe('ප්ලාස්ටික් විදුලිය සන්නයනය නො කරයි.');
    const notOnly = passage('செம்பு மட்டுமல்லாமல் அலுமினியமும் மின்சாரத்தைக் கடத்தும்.\n\nபிளாஸ்டிக் மின்சாரத்தைக் கடத்துவதில்லை.', 'tamil');
    expect(extractiveAnswer('மின்சாரத்தைக் கடத்தாத பொருட்கள் எவை?', [notOnly]).answer).toBe('பிளாஸ்டிக் மின்சாரத்தைக் கடத்துவதில்லை.');
    // English stopwords after "not" are skipped ("do not have a backbone" negates "backbone")
    const backbone = passage('Vertebrates such as fish have a backbone.\n\nInsects and worms do not have a backbone.');
    expect(extractiveAnswer('Which animals do not have a backbone?', [backbone]).answer).toBe('Insects and worms do not have a backbone.');
    // a particle or a light verb negates the word before it, not itself: "நீர் இல்லாத" and "පිරිසිදු නොකරයි" say nothing of the question's subject
    const water = passage('நீர் இல்லாத இடங்களில் முதுகெலும்பு உள்ள விலங்குகள் வாழ்கின்றன.\n\nபுழுக்கள், நத்தைகள் போன்றவை முதுகெலும்பு இல்லாத விலங்குகள் என அழைக்கப்படுகின்றன.', 'tamil');
    expect(extractiveAnswer('முதுகெலும்பு இல்லாத விலங்குகள் எவை?', [water]).answer).toBe('புழுக்கள், நத்தைகள் போன்றவை முதுகெலும்பு இல்லாத விலங்குகள் என அழைக்கப்படுகின்றன.');
    const clean = passage('ලෝහ විදුලිය සන්නයනය කරයි; ජලය පිරිසිදු නොකරයි.\n\nරබර් සහ ප්ලාස්ටික් වැනි ද්‍රව්‍ය විදුලිය සන්නයනය නොකරයි.', 'sinhala');
    expect(extractiveAnswer('විදුලිය සන්නයනය නොකරන ද්‍රව්‍ය මොනවාද?', [clean]).answer).toBe('රබර් සහ ප්ලාස්ටික් වැනි ද්‍රව්‍ය විදුලිය සන්නයනය නොකරයි.');
  });

  test('a passage that shares less than a quarter of the question\'s content words is on another subject: nothing found', () => {
    const other = passage('The world has seven continents. Asia is the largest of them.');
    expect(extractiveAnswer('Who won the 2018 football world cup?', [other]).used).toEqual([]);
    // a quarter is enough: one word of four
    expect(extractiveAnswer('Which world continent is largest?', [other]).used).toEqual([0]);
    expect(extractiveAnswer('Who won the football world cup?', [other]).used).toEqual([0]);
  });
});

// The embeddings endpoint's port, standing in for the endpoint (the integration test
// answer-quality.test.ts uses the real local server): each text's vector is [1, 0] when it
// mentions `near`, else [0, 1], and every call is recorded.
function embedderNear(near: string, fail?: Error): Embedder & { calls: { texts: string[]; kind: EmbeddingKind; urgent?: boolean }[] } {
  const calls: { texts: string[]; kind: EmbeddingKind; urgent?: boolean }[] = [];
  return {
    calls,
    embed(texts, kind, options) {
      calls.push({ texts, kind, urgent: options?.urgent });
      if (fail) return Promise.reject(fail);
      return Promise.resolve(texts.map((t) => (t.includes(near) ? [1, 0] : [0, 1])));
    },
  };
}

describe('answers ranked by meaning too', () => {
  const question = 'ශ්‍රී ලංකාවේ දිගම ගඟ කුමක්ද?';
  // three sentences share the question's words; the Kelani one the fewest
  const rivers = [
    passage('මහවැලි ගඟ ශ්‍රී ලංකාවේ දිගම ගඟයි. ශ්‍රී ලංකාවේ ගංගා කඳුකරයෙන් ඇරඹේ. කැළණි ගඟ කොළඹ අසලින් මුහුදට වැටේ.', 'sinhala'),
  ];

  test('in Sinhala, the best few sentences by word match are embedded in one urgent call and the one closest in meaning wins', async () => {
    const embedder = embedderNear('කැළණි');
    const words = extractiveAnswer(question, rivers);
    expect(words.answer).toMatch(/^මහවැලි/);
    const drafted = await answerByMeaning(question, rivers, { embedder, question: [1, 0] });
    // the closest in meaning is the answer's best sentence; the first sentence has the question's words it lacks, so it joins it
    expect(drafted).toEqual({ answer: 'මහවැලි ගඟ ශ්‍රී ලංකාවේ දිගම ගඟයි. කැළණි ගඟ කොළඹ අසලින් මුහුදට වැටේ.', used: [0] });
    expect(embedder.calls).toEqual([{ texts: rankCandidates(question, rivers).candidates.slice(0, 3).map((c) => c.text), kind: 'passage', urgent: true }]);
  });

  test("of a long sentence, the clause or the 25 words around the question's are embedded: its meaning there, not all it says", async () => {
    const filler = (from: number, count: number) => Array.from({ length: count }, (_, i) => `වචන${from + i}`).join(' ');
    const long = `පෙර ${filler(0, 30)} යුකැටන්හි මායා ජනයා ජීවත් වූහ ${filler(30, 10)}.`;
    const places = [passage(`${long} ඉක්වදෝරයේ ජනයා කඳුකරයේ ජීවත් වෙති.`, 'sinhala')];
    const embedder = embedderNear('මායා');
    const drafted = await answerByMeaning('යුකැටන් වල ජීවත් වුණේ කවුද?', places, { embedder, question: [1, 0] });
    expect(drafted.answer).toBe(long);
    const embedded = embedder.calls[0]!.texts;
    expect(embedded).toContain('ඉක්වදෝරයේ ජනයා කඳුකරයේ ජීවත් වෙති.');
    const focused = embedded.find((text) => text.includes('මායා'))!;
    expect(focused.split(' ')).toHaveLength(25);
    expect(focused).toContain('යුකැටන්හි මායා ජනයා ජීවත්');
    expect(focused).not.toContain('පෙර');
    // a long sentence of clauses (a list run on with semicolons): the clause with the question's words alone
    const clauses = `පෙර ${filler(0, 20)} ඔල්මෙක්වරු; ${filler(20, 10)} සැපොටෙක්වරු; යුකැටන්හි මායා; ${filler(30, 5)} ඇස්ටෙක්වරු.`;
    const listed = new Set<string>();
    const recording = embedderNear('මායා');
    await answerByMeaning('යුකැටන් වල ජීවත් වුණේ කවුද?', [passage(`${clauses} ඉක්වදෝරයේ ජනයා කඳුකරයේ ජීවත් වෙති.`, 'sinhala')], { embedder: recording, question: [1, 0] });
    for (const text of recording.calls[0]!.texts) listed.add(text);
    expect(listed).toEqual(new Set(['යුකැටන්හි මායා;', 'ඉක්වදෝරයේ ජනයා කඳුකරයේ ජීවත් වෙති.']));
  });

  test('at most three sentences are embedded, however many match', async () => {
    const many = [passage(Array.from({ length: 8 }, (_, i) => `ශ්‍රී ලංකාවේ ගඟ අංක ${i + 1} වේ.`).join(' '), 'sinhala')];
    const embedder = embedderNear('අංක 8');
    await answerByMeaning(question, many, { embedder, question: [1, 0] });
    expect(embedder.calls.map((c) => c.texts.length)).toEqual([3]);
  });

  test('without embeddings, or when the endpoint fails, the word match alone decides', async () => {
    const words = extractiveAnswer(question, rivers);
    expect(await answerByMeaning(question, rivers, null)).toEqual(words);
    const down = embedderNear('කැළණි', new DependencyUnavailableError('embeddings endpoint'));
    expect(await answerByMeaning(question, rivers, { embedder: down, question: [1, 0] })).toEqual(words);
    expect(down.calls).toHaveLength(1);
    // anything but the endpoint's failure is a defect, and not hidden
    const broken = embedderNear('කැළණි', new TypeError('a defect'));
    await expect(answerByMeaning(question, rivers, { embedder: broken, question: [1, 0] })).rejects.toThrow('a defect');
  });

  test('in English the word match alone decides, and nothing is embedded', async () => {
    const english = [passage('The Mahaweli is the longest river in Sri Lanka. The Kelani river reaches the sea near Colombo.')];
    const embedder = embedderNear('Kelani');
    const drafted = await answerByMeaning('What is the longest river in Sri Lanka?', english, { embedder, question: [1, 0] });
    expect(drafted).toEqual(extractiveAnswer('What is the longest river in Sri Lanka?', english));
    expect(drafted.answer).toMatch(/^The Mahaweli/);
    expect(embedder.calls).toEqual([]);
  });

  test("the question's vector that retrieval asked for is remembered, not a passage's", async () => {
    const remembering = rememberingQuestion(embedderNear('question'));
    expect(remembering.question()).toBeUndefined();
    await remembering.embed(['a question'], 'query');
    await remembering.embed(['a passage'], 'passage');
    expect(remembering.question()).toEqual([1, 0]);
  });
});
