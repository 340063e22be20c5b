package setup

import (
	"errors"
	"log/slog"

	"github.com/ariadne-graphrag/ariadne/lexicon"
)

// Lexicon configures the bilingual lexicon for cross-language term matching (package lexicon).
type Lexicon struct {
	Path string `name:"lexicon" env:"ARIADNE_LEXICON" default:".ariadne/lexicon/mueller7" help:"English–Russian dictionary in the dictd format (PATH.index and PATH.dict.dz; deploy/local.sh install lexicon puts Mueller's there) for matching question terms in the other language; none: off."`
}

// Load reads the lexicon. A missing dictionary is not an error: it logs a warning and returns
// nil (terms then match in the question's language only), as does Path "none". A dictionary that
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
	return lex, nil
}
