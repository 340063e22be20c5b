package setup

import (
	"errors"
	"log/slog"

	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// Lexicon configures the bilingual lexicon for cross-language term matching and the Russian
// thesaurus that goes with it (package lexicon).
type Lexicon struct {
	Path      string `name:"lexicon" env:"ARIADNE_LEXICON" default:".ariadne/lexicon/mueller7" help:"English–Russian dictionary in the dictd format (PATH.index and PATH.dict.dz; deploy/local.sh install lexicon puts Mueller's there) for matching question terms in the other language; none: off."`
	Thesaurus string `name:"thesaurus" env:"ARIADNE_THESAURUS" default:".ariadne/lexicon/ru-wiktionary-synsets.tsv" help:"Russian synonym sets, one per line, tab-separated (deploy/local.sh install lexicon writes Wiktionary's there) for matching a Russian question word by its synonyms; used with the lexicon; none: off."`
}

// Load reads the lexicon and its thesaurus. A missing dictionary is not an error: it logs a
// warning and returns nil (terms then match in the question's language only, without synonyms),
// as does Path "none"; a missing thesaurus logs a warning and leaves synonyms out. A file that
// exists but cannot be read is an error.
func (l Lexicon) Load(log *slog.Logger) (*lexicon.Lexicon, error) {
	if l.Path == "" || l.Path == "none" {
		return nil, nil
	}
	lex, err := lexicon.Load(l.Path)
	if errors.Is(err, lexicon.ErrNotFound) {
		log.Warn("no bilingual lexicon: question terms match in the question's language only", "err", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	en, ru := lex.Size()
	log.Info("bilingual lexicon", "dictionary", lex.Name(), "english_headwords", en, "russian_keys", ru)
	if l.Thesaurus == "" || l.Thesaurus == "none" {
		return lex, nil
	}
	th, err := lexicon.LoadThesaurus(l.Thesaurus)
	if errors.Is(err, lexicon.ErrNotFound) {
		log.Warn("no thesaurus: Russian question words match without their synonyms", "err", err)
		return lex, nil
	}
	if err != nil {
		return nil, err
	}
	sets, keys := th.Size()
	log.Info("thesaurus", "file", th.Name(), "synonym_sets", sets, "keys", keys)
	return lex.WithThesaurus(th), nil
}
