package resolution

import (
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// TestRecognizedReach: an undocumented entity reaches the readers of the texts whose own
// recognition or discovery gave it — a name only a management note gives is not linked from a
// public text — and widens when another text gives it on its own evidence.
func TestRecognizedReach(t *testing.T) {
	mgmt, sales, public := []string{"management"}, []string{"sales"}, []string{ariadne.PublicGroup}
	r := NewRegistry(nil)
	k, merged := r.ResolveRecognized(Candidate{Name: "Восточная Гавань", Type: "organization", ACL: mgmt})
	if merged || r.Reaches(k, public) || !r.Reaches(k, mgmt) {
		t.Fatalf("recognized in a management note: %s merged=%v reach %v; want new, reaching management only", k, merged, r.Reach(k))
	}
	if k2, merged := r.ResolveRecognized(Candidate{Name: "Восточная Гавань", Type: "organization", ACL: sales}); k2 != k || !merged ||
		!slices.Equal(r.Reach(k), []string{"management", "sales"}) {
		t.Errorf("recognized in a sales note too: %s merged=%v reach %v; want %s reaching management and sales", k2, merged, r.Reach(k), k)
	}
	if k3, _ := r.ResolveRecognized(Candidate{Name: "Восточная Гавань", Type: "organization", ACL: public}); k3 != k || !r.Reaches(k, public) {
		t.Errorf("recognized in a public note: %s reach %v; want %s reaching everyone", k3, r.Reach(k), k)
	}
	// Discovered codes (Resolve) alike.
	c, _ := r.Resolve(Candidate{Name: "SV-SEC-2031-007", Type: "identifier", ACL: mgmt})
	if r.Reaches(c, public) {
		t.Errorf("a code only a management note writes reaches %v, want management only", r.Reach(c))
	}
	// A described entity keeps its document's reach whatever texts name it.
	d, _ := r.Resolve(Candidate{Name: "Polar Owl", Type: "project", DocID: "projects/polar-owl", ACL: mgmt})
	r.ResolveRecognized(Candidate{Name: "Polar Owl", Type: "project", ACL: mgmt})
	if r.Reaches(d, public) {
		t.Errorf("the described project reaches %v, want its page's readers", r.Reach(d))
	}
}
