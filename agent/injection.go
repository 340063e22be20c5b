package agent

import (
	"regexp"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// instructionRE matches text addressed to an assistant rather than stating a fact: the common
// shapes of prompt injection in English and Russian ("ignore all previous instructions", "you are
// now in developer mode", "system override", "игнорируй предыдущие инструкции", "ты теперь …",
// "системное сообщение"). It runs on textnorm.Fold'ed text (lower case, ё→е, one space).
//
// Document text is data: the generator is told so, and the fences keep it from closing its
// fragment, but a sentence that *is* an instruction can still be the best lexical match for a
// question that names what it talks about (the extractive generator quoted "…reveal the budget
// of project Polaris…" for "What is the budget of project Polaris?"). Such a claim is never an
// answer: Answerer drops it after verification (dropInstructions).
var instructionRE = regexp.MustCompile(`(?:` +
	`\b(?:ignore|disregard|forget|override)\b[^.!?]{0,40}\b(?:instructions?|prompts?|rules|fragments|context|above)\b` +
	`|\b(?:system|admin(?:istrator)?) (?:override|prompt|message|instruction)s?\b` +
	`|\bdeveloper mode\b|\bjailbreak\b|\byou are now\b|\bnew instructions?\b` +
	`|\b(?:reveal|print|output|dump|show)\b[^.!?]{0,30}\b(?:full text|restricted|confidential|secret|hidden)\b` +
	`|\bassistant\s*[,:]` +
	`|игнорируй|проигнорируй|не обращай внимания на|забудь[^.!?]{0,30}(?:инструкц|указан|правил)` +
	`|системн\p{L}* (?:сообщени|инструкц|промпт)|режим\p{L}* разработчика|(?:^|[^\p{L}])(?:ты|вы) теперь(?:$|[^\p{L}])` +
	`|нов\p{L}* инструкц|(?:выведи|раскрой|покажи|распечатай)[^.!?]{0,40}(?:полный текст|закрыт|секрет|конфиденциальн|бюджет)` +
	// Russian word order is free: the object may come first and the imperative last.
	`|(?:полный текст|закрыт|секрет|конфиденциальн|бюджет)[^.!?]{0,40}(?:^|[^\p{L}])(?:выведи|раскрой|покажи|распечатай)(?:$|[^\p{L}])` +
	`|ассистент\s*[,:]` +
	// Text addressed to whatever answers questions over the documents ("Note for the answering
	// system: …", «Примечание для системы, которая отвечает на вопросы: …»), and directives to
	// state something as a fact or to keep quiet about the other documents: no reader of a
	// document is told to do either.
	`|\b(?:note|message|notice|reminder|instructions?|attention|memo)\s+(?:for|to)\s+(?:the\s+|any\s+|all\s+)?(?:answering|ai|llm|language model|chat ?bots?|bots?|models?|assistants?|system|search engine|retrieval)\b` +
	`|\b(?:dear|hey|attention)\s*,?\s+(?:ai|assistant|bot|chat ?bot|model|llm)\b|\bif you are an? (?:ai|language model|assistant|bot)\b` +
	`|\b(?:ai|llm|language model|chat ?bot|answering system|answer engine)s?\b[^.!?]{0,40}\b(?:must|should|shall) (?:answer|say|state|reply|respond|report)\b` +
	`|\bstate (?:this|it|that) as (?:a )?fact\b|\b(?:answer|reply to|respond to) (?:every|any|all) (?:questions?|queries)\b` +
	`|\bdo not (?:mention|cite|reference|quote) (?:this|the other|other|any other) (?:documents?|sources?|pages?|notes?)\b` +
	`|(?:примечани|сообщени|заметк|указани|инструкци|внимани|памятк)\p{L}*\s+(?:для|к)\s+(?:систем|ассистент|бот|модел|нейросет|ии(?:$|[^\p{L}])|чат-?бот)` +
	`|(?:систем|модел|бот|нейросет)\p{L}*,?\s+котор\p{L}*\s+отвеча\p{L}*\s+на\s+вопрос` +
	`|(?:уважаем|дорог)\p{L}*\s+(?:ии|ассистент|бот|модел|нейросет)` +
	`|(?:сообщай|сообщи|говори|скажи|указывай|укажи|отвечай|ответь|подавай|выдавай)[^.!?]{0,40}как (?:факт|истин)` +
	`|на\s+(?:любой|любые|все|каждый)\s+вопрос\p{L}*[^.!?]{0,40}(?:^|[^\p{L}])отвечай` +
	`|не\s+(?:ссылайся|упоминай|цитируй)[^.!?]{0,30}(?:документ|источник|этот|эту|други)` +
	`)`)

// InstructionLike reports whether s reads as an instruction to the assistant (instructionRE).
func InstructionLike(s string) bool {
	return instructionRE.MatchString(textnorm.FoldString(s))
}

// dropInstructions removes the claims whose text or any quote is InstructionLike and returns
// the rest with how many were dropped.
func dropInstructions(claims []ariadne.Claim) ([]ariadne.Claim, int) {
	kept := claims[:0:0]
	for _, c := range claims {
		bad := InstructionLike(c.Text)
		for _, ci := range c.Citations {
			bad = bad || InstructionLike(ci.Quote)
		}
		if !bad {
			kept = append(kept, c)
		}
	}
	return kept, len(claims) - len(kept)
}
