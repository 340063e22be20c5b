package evaluation

import "github.com/ariadne-graphrag/ariadne"

// AllGroups are the permission groups of the corpora evaluated here (the public group and the
// KB's departments): reading as all of them reads every chunk, for work that is never shown to a
// caller (precomputing evidence unit vectors, re-checking citations).
var AllGroups = []string{ariadne.PublicGroup, "delivery", "sales", "management"}
