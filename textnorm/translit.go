package textnorm

// Transliterate returns word with its Cyrillic letters in Latin (the scheme Latin uses, before
// phonetic folding): «Ханс» → "khans". Other runes are kept; the result is lower case.
func Transliterate(word string) string { return transliterate(FoldString(word)) }
