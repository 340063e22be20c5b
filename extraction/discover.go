package extraction

import (
	"regexp"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

var (
	// codeSpanRE finds inline code spans.
	codeSpanRE = regexp.MustCompile("`([^`\n]{2,80})`")
	// componentRE is what a code span must look like to name a technical artifact: lower-case
	// words joined by '-', '_' or '.', e.g. billing-gateway, redis-shop, max_conn_lifetime.
	componentRE = regexp.MustCompile(`^[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+$`)
	// orgRE finds organizations written with a legal form: ООО «Западный ветер», АО «Банк …».
	orgRE = regexp.MustCompile(`(?:ООО|ОАО|ЗАО|ПАО|АО|МУП|ГУП|ФГУП|НКО|АНО)\s+«[^«»]{2,60}(?:«[^«»]{1,40}»?)?[^«»]{0,20}»+`)
	// orgLatinRE finds "Name Name LLC" style organizations.
	orgLatinRE = regexp.MustCompile(`\b(?:[A-Z][A-Za-z0-9&-]+ ){1,4}(?:LLC|JSC|PJSC|Inc\.?|Ltd\.?|GmbH|PLC)\b`)
)

// Discover returns the undocumented entities a document names in recognizable forms: components
// (inline code spans such as `billing-gateway`), identifiers (codes such as ERR-7713 or SV-OPS-2030-007)
// and organizations written with a legal form. The registry decides later whether a discovered
// name is an existing entity (INC-7702 is the incident its document describes; «ООО
// «Тер-Пласт»» is a client).
func Discover(doc ariadne.Document) []resolution.Candidate {
	seen := map[string]bool{}
	var out []resolution.Candidate
	add := func(name, typ string) {
		name = strings.TrimSpace(name)
		if k := typ + "\x00" + name; name != "" && !seen[k] {
			seen[k] = true
			out = append(out, resolution.Candidate{Name: name, Type: typ})
		}
	}
	for _, m := range codeSpanRE.FindAllStringSubmatch(doc.Body, -1) {
		if componentRE.MatchString(m[1]) {
			add(m[1], "component")
		}
	}
	for _, text := range []string{doc.Title, doc.Body} {
		for _, id := range textnorm.FindBounded(identifierRE, text) {
			add(id, "identifier")
		}
		for _, o := range orgRE.FindAllString(text, -1) {
			add(o, "organization")
		}
		for _, o := range orgLatinRE.FindAllString(text, -1) {
			add(o, "organization")
		}
	}
	return out
}
