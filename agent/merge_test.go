package agent

import (
	"strconv"
	"strings"
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

func TestWithHomonymPages(t *testing.T) {
	unit := func(chunkID, text string, cover float64) termUnit {
		return termUnit{frag: Fragment{Chunk: ariadne.Chunk{ID: chunkID, DocID: ariadne.DocIDOfChunk(chunkID)}}, text: text, cover: cover}
	}
	decoy := unit("contracts/public-ctr#0000-aaaaaaaa", "штраф 50%", 0.8)
	real := unit("contracts/ctr-2025-07#0001-bbbbbbbb", "штраф 2%", 0.8)
	cost := unit("contracts/ctr-2025-07#0000-cccccccc", "стоимость", 0.5)
	weak := unit("contracts/ctr-2025-07#0002-dddddddd", "прочее", 0.1)
	both := []Linked{{Key: "contracts/public-ctr", Surface: "договору CTR-2025-07"}, {Key: "contracts/ctr-2025-07", Surface: "договору CTR-2025-07"}}
	texts := func(us []termUnit) []string {
		var out []string
		for _, u := range us {
			out = append(out, u.text)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		chosen []termUnit
		units  []termUnit
		linked []Linked
		want   []string
	}{
		{"the other page's best unit joins", []termUnit{decoy, cost}, []termUnit{decoy, real, cost}, both, []string{"штраф 50%", "стоимость", "штраф 2%"}},
		{"not twice", []termUnit{decoy, real}, []termUnit{decoy, real}, both, []string{"штраф 50%", "штраф 2%"}},
		{"not under the bar", []termUnit{decoy}, []termUnit{decoy, weak}, both, []string{"штраф 50%"}},
		{"one page linked: nothing added", []termUnit{decoy}, []termUnit{decoy, real}, both[:1], []string{"штраф 50%"}},
		{"other surfaces are other things", []termUnit{decoy}, []termUnit{decoy, real},
			[]Linked{both[0], {Key: "contracts/ctr-2025-07", Surface: "Тундра Энерго"}}, []string{"штраф 50%"}},
	} {
		got := texts(withHomonymPages(tc.chosen, tc.units, tc.linked, 0.3))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
