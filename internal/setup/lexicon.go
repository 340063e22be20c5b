package setup

import (
	"errors"
	"log/slog"

	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// Lexicon configures the bilingual lexicon for cross-language term matching, the Russian
// thesaurus that goes with it and the gazetteer of place names (package lexicon).
type Lexicon struct {
	Path      string `name:"lexicon" env:"ARIADNE_LEXICON" default:".ariadne/lexicon/mueller7" help:"English–Russian dictionary in the dictd format (PATH.index and PATH.dict.dz; deploy/local.sh install lexicon puts Mueller's there) for matching question terms in the other language; none: off."`
	Thesaurus string `name:"thesaurus" env:"ARIADNE_THESAURUS" default:".ariadne/lexicon/ru-wiktionary-synsets.tsv" help:"Russian synonym sets, one per line, tab-separated (deploy/local.sh install lexicon writes Wiktionary's there) for matching a Russian question word by its synonyms; used with the lexicon; none: off."`
	Places    string `name:"places" env:"ARIADNE_PLACES" default:".ariadne/lexicon/places.tsv" help:"Place names in English and Russian (deploy/local.sh install lexicon writes GeoNames' cities and the CLDR's countries there) that make one entity of \"Vienna\" and «Вена»; used with the lexicon; none: off."`
}

// Load reads the lexicon, its thesaurus and its gazetteer. A missing dictionary is not an error:
// it logs a warning and returns nil (terms then match in the question's language only, without
// synonyms), as does Path "none"; a missing thesaurus or gazetteer logs a warning and leaves
// synonyms or place names out. A file that exists but cannot be read is an error.
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
	if lex, err = l.withThesaurus(lex, log); err != nil {
		return nil, err
	}
	return l.withPlaces(lex, log)
}

// withThesaurus gives lex the synonym sets at l.Thesaurus: a missing file logs a warning and
// leaves lex without synonyms; a file that exists but cannot be read is an error.
func (l Lexicon) withThesaurus(lex *lexicon.Lexicon, log *slog.Logger) (*lexicon.Lexicon, error) {
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

// withPlaces gives lex the gazetteer at l.Places: a missing file logs a warning and leaves lex
// without place names; a file that exists but cannot be read is an error.
func (l Lexicon) withPlaces(lex *lexicon.Lexicon, log *slog.Logger) (*lexicon.Lexicon, error) {
	if l.Places == "" || l.Places == "none" {
		return lex, nil
	}
	g, err := lexicon.LoadGazetteer(l.Places)
	if errors.Is(err, lexicon.ErrNotFound) {
		log.Warn("no gazetteer: a place written in English and in Russian («Вена», \"Vienna\") stays two entities unless the names transliterate", "err", err)
		return lex, nil
	}
	if err != nil {
		return nil, err
	}
	log.Info("gazetteer", "file", g.Name(), "places", g.Size())
	return lex.WithGazetteer(g), nil
}
