package vector

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ariadne-graphrag/ariadne"
)

// grpcSearcher runs Store.Search over Weaviate's gRPC search API (weaviate.v1.Weaviate/Search)
// instead of GraphQL. The walk's question–chunk cosines are a vector search restricted to ~1 500
// chunk ids (agent.graphHybrid): over GraphQL Weaviate spends about as long writing 1 500 results
// as JSON as it does filtering (47 ms in all at 100k chunks on 2 cores), over gRPC the same
// search takes 28 ms. The first pass's hybrid and vector searches return whole chunks; over gRPC
// Weaviate skips parsing and validating a GraphQL query (8 % of its CPU on multi_hop) and the
// client decoding JSON into maps (docs/performance.md). The weaviate-go-client v4 speaks gRPC
// only for batch writes, so this is the protocol's generated client from the weaviate module the
// project already requires.
type grpcSearcher struct {
	client pb.WeaviateClient
	apiKey string
}

// newGRPCSearcher makes the searcher for addr ("host:port"); TLS when secured. The connection is
// made on the first search (grpc.NewClient does not dial).
func newGRPCSearcher(addr string, secured bool, apiKey string) (*grpcSearcher, error) {
	creds := insecure.NewCredentials()
	if secured {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, fmt.Errorf("vector: gRPC client for %s: %w", addr, errors.Join(ariadne.ErrInvalid, err))
	}
	return &grpcSearcher{client: pb.NewWeaviateClient(conn), apiKey: apiKey}, nil
}

// resultProperties are the stored properties a search returns (search_text, the BM25 field, is
// not returned); scoreProperties those of a ScoresOnly search without ChunkIDs.
var (
	resultProperties = []string{"chunk_id", "doc_id", "doc_version", "doc_type", "position", "title", "heading", "text", "lang", "acl", "updated"}
	scoreProperties  = []string{"chunk_id"}
)

// search runs one validated search of mode (vector, BM25 or hybrid) over gRPC, with the same
// filter, limit, returned fields and scores as the GraphQL query of Store.Search: chunks one of
// q.Groups may read, among q.ChunkIDs when set; a vector hit's score is 1 − distance, a BM25 or
// hybrid hit's Weaviate's score, each as the float64 of the float32's shortest decimal form (what
// GraphQL's JSON gives). An absent class gives no hits, as over GraphQL.
func (g *grpcSearcher) search(ctx context.Context, s *Store, mode ariadne.SearchMode, q ariadne.SearchQuery, limit int) ([]ariadne.ScoredChunk, error) {
	where := containsAny("acl", q.Groups)
	if len(q.ChunkIDs) > 0 {
		where = &pb.Filters{Operator: pb.Filters_OPERATOR_AND, Filters: []*pb.Filters{where, containsAny("chunk_id", q.ChunkIDs)}}
	}
	props := resultProperties
	var byObject map[string]string // object UUID → chunk id, for a scores-only search among ChunkIDs
	if q.ScoresOnly {
		props = scoreProperties
		if len(q.ChunkIDs) > 0 {
			// Each chunk is stored under ObjectID(chunk id), so the hits' UUIDs name them:
			// Weaviate returns no property at all, which cuts the walk's cosine search over
			// ~1 500 chunks from 24 to 19 ms at 100k chunks (docs/performance.md).
			props = nil
			byObject = make(map[string]string, len(q.ChunkIDs))
			for _, id := range q.ChunkIDs {
				byObject[ObjectID(id)] = id
			}
		}
	}
	req := &pb.SearchRequest{
		Collection:  s.class,
		Limit:       uint32(limit),
		Uses_127Api: true, // properties in the typed form (NonRefProps)
		Filters:     where,
		Properties:  &pb.PropertiesRequest{NonRefProperties: props},
		Metadata:    &pb.MetadataRequest{Vector: q.WithVectors, Uuid: byObject != nil},
	}
	terms, ok := keywordQuery(mode, q)
	if !ok {
		return nil, nil // only function words: BM25 has nothing to match
	}
	switch mode {
	case ariadne.SearchVector:
		req.NearVector = &pb.NearVector{VectorBytes: vectorBytes(q.Vector)}
		req.Metadata.Distance = true
	case ariadne.SearchBM25:
		req.Bm25Search = &pb.BM25{Query: terms, Properties: []string{"search_text"}}
		req.Metadata.Score = true
	case ariadne.SearchHybrid:
		fusion := pb.Hybrid_FUSION_TYPE_RELATIVE_SCORE
		if q.Fusion == ariadne.FusionRanked {
			fusion = pb.Hybrid_FUSION_TYPE_RANKED
		}
		req.HybridSearch = &pb.Hybrid{Query: terms, Properties: []string{"search_text"}, VectorBytes: vectorBytes(q.Vector),
			Alpha: float32(q.Alpha), FusionType: fusion}
		req.Metadata.Score = true
	default:
		return nil, fmt.Errorf("vector: unknown search mode %q: %w", mode, ariadne.ErrInvalid)
	}
	if cl, ok := grpcConsistency[s.placement.Consistency]; ok {
		req.ConsistencyLevel = &cl
	}
	if g.apiKey != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+g.apiKey)
	}
	reply, err := g.client.Search(ctx, req)
	if err != nil {
		if status.Code(err) == codes.NotFound || strings.Contains(err.Error(), "could not find class") {
			return nil, nil // nothing ingested yet: the class does not exist
		}
		return nil, grpcError(string(mode)+" search", err)
	}
	out := make([]ariadne.ScoredChunk, 0, len(reply.GetResults()))
	for _, r := range reply.GetResults() {
		sc := ariadne.ScoredChunk{Chunk: chunkFromFields(r.GetProperties().GetNonRefProps().GetFields()), Sources: []string{string(mode)}}
		md := r.GetMetadata()
		if byObject != nil {
			id, ok := byObject[md.GetId()]
			if !ok {
				return nil, fmt.Errorf("vector: %s search: hit %q is not the object of any chunk asked for (class %s not written by ObjectID?)",
					mode, md.GetId(), s.class)
			}
			sc.ID = id
		}
		if mode == ariadne.SearchVector {
			sc.Score = 1 - float32Decimal(md.GetDistance())
		} else {
			sc.Score = float32Decimal(md.GetScore())
		}
		if q.WithVectors {
			sc.Vector = vectorOfBytes(md.GetVectorBytes())
		}
		out = append(out, sc)
	}
	return out, nil
}

// chunkFromFields is chunkFromProperties for the gRPC API's typed properties.
func chunkFromFields(f map[string]*pb.Value) ariadne.Chunk {
	c := ariadne.Chunk{ID: f["chunk_id"].GetTextValue(), DocID: f["doc_id"].GetTextValue(), DocType: f["doc_type"].GetTextValue(),
		Title: f["title"].GetTextValue(), Text: f["text"].GetTextValue(), Lang: f["lang"].GetTextValue(),
		Updated: f["updated"].GetTextValue(), Position: int(f["position"].GetIntValue()), DocVersion: int(f["doc_version"].GetIntValue())}
	if hp := f["heading"].GetTextValue(); hp != "" {
		c.Heading = strings.Split(hp, " > ")
	}
	if acl := f["acl"].GetListValue().GetTextValues().GetValues(); len(acl) > 0 {
		c.ACL = append([]string(nil), acl...)
	}
	return c
}

// vectorOfBytes decodes the gRPC API's vector_bytes (each float32 little-endian); nil when empty.
func vectorOfBytes(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// vectorBytes is v as the gRPC API's vector_bytes: each float32 little-endian.
func vectorBytes(v []float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

// float32Decimal is a float32 as the float64 of its shortest decimal form — what GraphQL's JSON
// gives for the same distance — so that a score is the same number over either protocol
// (float64(d) would differ in the last bits, and the walk's order with it on near ties).
func float32Decimal(d float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(d), 'g', -1, 32), 64)
	return v
}

func containsAny(property string, values []string) *pb.Filters {
	return &pb.Filters{Operator: pb.Filters_OPERATOR_CONTAINS_ANY,
		Target:    &pb.FilterTarget{Target: &pb.FilterTarget_Property{Property: property}},
		TestValue: &pb.Filters_ValueTextArray{ValueTextArray: &pb.TextArray{Values: values}}}
}

// grpcConsistency maps Placement.Consistency to the gRPC enum.
var grpcConsistency = map[string]pb.ConsistencyLevel{
	"ONE": pb.ConsistencyLevel_CONSISTENCY_LEVEL_ONE, "QUORUM": pb.ConsistencyLevel_CONSISTENCY_LEVEL_QUORUM,
	"ALL": pb.ConsistencyLevel_CONSISTENCY_LEVEL_ALL,
}

// keyRejected is what an error says when Weaviate refused Ariadne's API key, or its lack of one.
const keyRejected = "Weaviate rejected the API key (check ARIADNE_WEAVIATE_API_KEY, or the key file of --weaviate-api-key-file)"

// authRefused reports whether err is a gRPC call Weaviate refused for its API key:
// Unauthenticated or PermissionDenied, or Unknown with the "extract auth:" Weaviate 1.29's
// service puts before a failed authentication (its status mapping knows only its own error
// types, not the API-key check's 401, so a missing or wrong key arrives as Unknown).
func authRefused(err error) bool {
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.Unauthenticated, codes.PermissionDenied:
		return true
	case codes.Unknown:
		return strings.Contains(st.Message(), "extract auth:")
	}
	return false
}

// grpcError classifies a gRPC failure like wrap does an HTTP one: a refused key is
// ErrUnauthorized (authRefused), a bad request ErrInvalid, anything else (the server down,
// overloaded or failing) ErrUnavailable, which the retrieval retries.
func grpcError(op string, err error) error {
	if authRefused(err) {
		return fmt.Errorf("vector: %s: %s: %w", op, keyRejected, errors.Join(ariadne.ErrUnauthorized, err))
	}
	switch status.Code(err) {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange, codes.Unimplemented:
		return fmt.Errorf("vector: %s: %w", op, errors.Join(ariadne.ErrInvalid, err))
	case codes.Canceled:
		if strings.Contains(err.Error(), "context canceled") {
			return fmt.Errorf("vector: %s: %w", op, errors.Join(context.Canceled, err))
		}
	}
	return fmt.Errorf("vector: %s: %w", op, errors.Join(ariadne.ErrUnavailable, err))
}
