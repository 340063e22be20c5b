package agent

import (
	"strconv"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestMergeClaims(t *testing.T) {
	cite := func(chunk string, start, end int) ariadne.Claim {
		return ariadne.Claim{Text: chunk, Citations: []ariadne.Citation{{ChunkID: chunk, Start: start, End: end}}}
	}
	hopA, hopB := cite("incidents/inc-1#0000", 10, 40), cite("projects/p#0002", 0, 60)
	other := cite("clients/c#0001", 5, 50)
	sameChunkOtherSpan := cite("incidents/inc-1#0000", 41, 80)
	for _, tc := range []struct {
		name        string
		first, rest []ariadne.Claim
		want        []string // chunk id:start of each claim kept, in order
	}{
		{"chain sentence stated twice is claimed once", []ariadne.Claim{hopA, hopB, hopA}, nil, []string{"incidents/inc-1#0000:10", "projects/p#0002:0"}},
		{"generator claim repeating a hop is dropped", []ariadne.Claim{hopA, hopB}, []ariadne.Claim{hopB, other}, []string{"incidents/inc-1#0000:10", "projects/p#0002:0", "clients/c#0001:5"}},
		{"another span of the same chunk is kept", []ariadne.Claim{hopA}, []ariadne.Claim{sameChunkOtherSpan}, []string{"incidents/inc-1#0000:10", "incidents/inc-1#0000:41"}},
		{"nothing to merge", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range mergeClaims(tc.first, tc.rest) {
				got = append(got, c.Citations[0].ChunkID+":"+strconv.Itoa(c.Citations[0].Start))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}
