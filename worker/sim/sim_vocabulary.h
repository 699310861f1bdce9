// The embedded English vocabulary shared by the simulated models: the content words simulated answers
// are built from, and the function and common words the simulated judge recognises as English.
//
// Word ids: verbs are [0, kNumVerbs), adjectives follow, then nouns; the three classes are disjoint
// and no content word is a function or common word (sim_vocabulary_test checks this). All words are
// lowercase ASCII. Everything here is immutable; every function is thread-safe.
#ifndef NOVELTYGRID_WORKER_SIM_SIM_VOCABULARY_H_
#define NOVELTYGRID_WORKER_SIM_SIM_VOCABULARY_H_

#include <span>
#include <string_view>

namespace noveltygrid::sim {

// Transitive verbs in base form ("protect"), usable after "to" and "can".
std::span<const std::string_view> Verbs();
// Adjectives usable before a singular noun.
std::span<const std::string_view> Adjectives();
// Singular countable nouns.
std::span<const std::string_view> Nouns();

int VocabularySize();
std::string_view VocabularyWord(int id);
int VerbId(int index);
int AdjectiveId(int index);
int NounId(int index);
// The id of a lowercase content word, or -1.
int VocabularyId(std::string_view lowercase_word);

// Articles, pronouns, prepositions, auxiliaries, conjunctions: the glue of a grammatical sentence.
bool IsFunctionWord(std::string_view lowercase_word);
// Frequent English words that are neither vocabulary nor function words (the simulated templates'
// own words among them).
bool IsCommonWord(std::string_view lowercase_word);

}  // namespace noveltygrid::sim

#endif  // NOVELTYGRID_WORKER_SIM_SIM_VOCABULARY_H_
