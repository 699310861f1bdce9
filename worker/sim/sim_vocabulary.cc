#include "worker/sim/sim_vocabulary.h"

#include <array>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace noveltygrid::sim {

namespace {

constexpr std::string_view kVerbs[] = {
    "build",     "design",   "reduce",    "improve",    "share",      "combine",   "protect",   "measure",
    "train",     "organize", "repair",    "replace",    "explore",    "connect",   "simplify",  "strengthen",
    "expand",    "monitor",  "test",      "adapt",      "balance",    "capture",   "collect",   "compare",
    "convert",   "create",   "cultivate", "decorate",   "deliver",    "develop",   "divide",    "encourage",
    "engage",    "enrich",   "establish", "examine",    "extend",     "filter",    "finance",   "gather",
    "guide",     "harvest",  "highlight", "identify",   "illuminate", "insulate",  "integrate", "invent",
    "launch",    "limit",    "maintain",  "manage",     "map",        "mentor",    "model",     "motivate",
    "negotiate", "nurture",  "observe",   "optimize",   "paint",      "polish",    "preserve",  "prioritize",
    "promote",   "recycle",  "redesign",  "reinforce",  "renew",      "rescue",    "restore",   "review",
    "reward",    "schedule", "secure",    "shape",      "shelter",    "sketch",    "stabilize", "store",
    "stretch",   "support",  "sustain",   "teach",      "track",      "transform", "translate", "transport",
    "update",    "upgrade",  "validate",  "warm",       "weave",      "welcome",   "wrap",      "anchor",
    "bundle",    "carve",    "clarify",   "coordinate", "fund",       "heat",      "insure",    "lend",
    "mend",      "plant",    "rebuild",   "regulate",   "rent",       "sell",      "stack",     "tax",
};

constexpr std::string_view kAdjectives[] = {
    "quiet",       "bright",      "gentle",   "modern",    "ancient",    "flexible",    "careful",    "durable",
    "fragile",     "generous",    "hidden",   "humble",    "local",      "massive",     "narrow",     "patient",
    "portable",    "practical",   "precise",  "quick",     "rare",       "reliable",    "robust",     "rural",
    "seasonal",    "shared",      "simple",   "small",     "smooth",     "solid",       "sturdy",     "subtle",
    "sustainable", "tiny",        "urban",    "vibrant",   "warmer",     "wild",        "wooden",     "golden",
    "silver",      "colorful",    "compact",  "creative",  "curious",    "digital",     "efficient",  "elegant",
    "familiar",    "formal",      "fresh",    "friendly",  "global",     "gradual",     "hollow",     "informal",
    "layered",     "lightweight", "loyal",    "mobile",    "natural",    "neutral",     "open",       "organic",
    "peaceful",    "playful",     "private",  "public",    "radical",    "rapid",       "regional",   "resilient",
    "rustic",      "safe",        "sensible", "sharp",     "silent",     "social",      "soft",       "spacious",
    "stable",      "steady",      "strong",   "temporary", "thoughtful", "transparent", "balanced",   "visible",
    "vivid",       "weekly",      "bold",     "calm",      "clever",     "cozy",        "crisp",      "dense",
    "distant",     "eager",       "faint",    "fierce",    "affordable", "coastal",     "collective", "fertile",
    "frugal",      "hardy",       "modular",  "nimble",    "sheltered",  "sunny",       "tidy",       "vertical",
};

constexpr std::string_view kNouns[] = {
    "garden",     "bridge",    "library",   "market",       "river",     "network",   "school",     "kitchen",
    "workshop",   "village",   "museum",    "festival",     "harbor",    "forest",    "tower",      "engine",
    "ladder",     "lantern",   "window",    "roof",         "wall",      "door",      "table",      "chair",
    "budget",     "policy",    "community", "neighborhood", "family",    "team",      "student",    "teacher",
    "farmer",     "artist",    "engineer",  "doctor",       "nurse",     "musician",  "child",      "elder",
    "traveler",   "merchant",  "sailor",    "builder",      "writer",    "reader",    "volunteer",  "council",
    "committee",  "company",   "factory",   "warehouse",    "office",    "hospital",  "clinic",     "laboratory",
    "archive",    "journal",   "newspaper", "radio",        "camera",    "compass",   "notebook",   "pencil",
    "canvas",     "sculpture", "mural",     "song",         "poem",      "recipe",    "meal",       "bread",
    "soup",       "orchard",   "vineyard",  "meadow",       "valley",    "mountain",  "island",     "coast",
    "desert",     "lake",      "pond",      "fountain",     "canal",     "road",      "trail",      "railway",
    "station",    "airport",   "vehicle",   "bicycle",      "boat",      "wagon",     "cart",       "truck",
    "tractor",    "battery",   "circuit",   "sensor",       "signal",    "antenna",   "satellite",  "telescope",
    "microscope", "computer",  "database",  "software",     "algorithm", "dashboard", "platform",   "interface",
    "protocol",   "currency",  "loan",      "savings",      "contract",  "agreement", "treaty",     "alliance",
    "parliament", "court",     "election",  "campaign",     "movement",  "tradition", "ritual",     "custom",
    "habit",      "routine",   "calendar",  "clock",        "season",    "rainfall",  "climate",    "soil",
    "seed",       "root",      "branch",    "leaf",         "flower",    "tree",      "shrub",      "hedge",
    "fence",      "gate",      "courtyard", "balcony",      "staircase", "hallway",   "basement",   "attic",
    "fireplace",  "chimney",   "furnace",   "pipe",         "valve",     "pump",      "cable",      "wire",
    "rope",       "chain",     "hook",      "bucket",       "basket",    "jar",       "bottle",     "box",
    "crate",      "shelf",     "cabinet",   "drawer",       "mirror",    "lamp",      "candle",     "pillow",
    "quilt",      "carpet",    "curtain",   "tile",         "stone",     "timber",    "glass",      "steel",
    "copper",     "clay",      "wool",      "cotton",       "silk",      "leather",   "paper",      "ink",
    "foundry",    "harvester", "mill",      "bakery",       "theater",   "stadium",   "playground", "greenhouse",
    "barn",       "shed",      "cottage",   "apartment",    "studio",    "gallery",   "classroom",  "textbook",
    "lecture",    "exam",
};

// Pronouns, articles, prepositions, auxiliaries, conjunctions and quantifiers.
constexpr std::string_view kFunctionWords[] = {
    "a",        "an",      "the",     "to",     "of",      "in",       "on",      "at",      "for",        "with",
    "by",       "from",    "and",     "or",     "but",     "so",       "that",    "which",   "who",        "whom",
    "whose",    "this",    "these",   "those",  "it",      "its",      "is",      "are",     "was",        "were",
    "be",       "been",    "being",   "can",    "could",   "would",    "will",    "should",  "may",        "might",
    "must",     "shall",   "then",    "than",   "as",      "if",       "while",   "through", "into",       "onto",
    "about",    "each",    "every",   "all",    "some",    "any",      "no",      "not",     "more",       "most",
    "very",     "also",    "i",       "you",    "we",      "they",     "he",      "she",     "his",        "her",
    "their",    "our",     "your",    "my",     "me",      "us",       "them",    "him",     "there",      "here",
    "when",     "where",   "how",     "what",   "why",     "do",       "does",    "did",     "have",       "has",
    "had",      "just",    "such",    "both",   "only",    "own",      "same",    "too",     "over",       "under",
    "after",    "before",  "between", "during", "without", "within",   "around",  "up",      "down",       "out",
    "off",      "because", "since",   "until",  "though",  "although", "whether", "once",    "again",      "other",
    "another",  "even",    "still",   "yet",    "nor",     "per",      "via",     "toward",  "towards",    "upon",
    "across",   "against", "along",   "among",  "beyond",  "itself",   "himself", "herself", "themselves", "ourselves",
    "yourself", "myself",  "am",      "let",
};

// Frequent words outside the vocabulary, including every word of the simulated templates.
constexpr std::string_view kCommonWords[] = {
    "one",     "two",         "three",    "four",       "five",     "first",     "second",    "option",
    "using",   "way",         "means",    "lets",       "sensibly", "approach",  "keeping",   "use",
    "idea",    "pair",        "helping",  "able",       "consider", "help",      "simply",    "add",
    "wanted",  "end",         "learned",  "tried",      "began",    "picture",   "ready",     "soon",
    "new",     "answer",      "sure",     "certainly",  "given",    "good",      "better",    "best",
    "make",    "makes",       "made",     "get",        "gets",     "got",       "take",      "takes",
    "think",   "know",        "see",      "look",       "want",     "need",      "needs",     "give",
    "work",    "works",       "time",     "people",     "year",     "years",     "day",       "thing",
    "things",  "world",       "life",     "part",       "place",    "case",      "point",     "fact",
    "problem", "question",    "reason",   "result",     "example",  "change",    "order",     "because",
    "like",    "well",        "many",     "much",       "few",      "less",      "long",      "short",
    "high",    "low",         "large",    "big",        "great",    "little",    "old",       "young",
    "right",   "last",        "next",     "early",      "late",     "important", "different", "possible",
    "real",    "whole",       "main",     "key",        "clear",    "easy",      "hard",      "able",
    "said",    "say",         "says",     "went",       "go",       "goes",      "come",      "came",
    "found",   "find",        "keep",     "kept",       "called",   "become",    "became",    "leave",
    "left",    "put",         "mean",     "show",       "shows",    "try",       "turn",      "start",
    "started", "seem",        "seemed",   "feel",       "felt",     "bring",     "brought",   "began",
    "begin",   "happen",      "happened", "write",      "wrote",    "provide",   "provides",  "allow",
    "allows",  "include",     "includes", "continue",   "set",      "called",    "story",     "girl",
    "boy",     "dog",         "cat",      "man",        "woman",    "friend",    "home",      "house",
    "water",   "food",        "money",    "government", "economy",  "country",   "city",      "state",
    "system",  "group",       "number",   "area",       "power",    "war",       "history",   "idea",
    "ideas",   "information", "process",  "effect",     "level",    "sense",     "together",  "later",
    "never",   "always",      "often",    "sometimes",  "now",      "today",     "already",   "perhaps",
    "maybe",   "instead",     "rather",   "indeed",     "however",  "therefore", "thus",      "finally",
    "ever",    "almost",      "quite",    "really",     "whole",    "happy",     "sad",       "morning",
    "night",   "eyes",        "hand",     "hands",      "head",     "heart",     "name",      "word",
    "words",   "color",       "easily",   "nearby",     "together", "would",     "wanted",
};

struct Lookup {
  absl::flat_hash_map<std::string_view, int> ids;
  absl::flat_hash_set<std::string_view> function_words;
  absl::flat_hash_set<std::string_view> common_words;
  std::array<std::string_view, std::size(kVerbs) + std::size(kAdjectives) + std::size(kNouns)> words;
};

const Lookup& GetLookup() {
  static const Lookup* const lookup = [] {
    auto* l = new Lookup;
    int id = 0;
    for (std::string_view w : kVerbs) l->words[id++] = w;
    for (std::string_view w : kAdjectives) l->words[id++] = w;
    for (std::string_view w : kNouns) l->words[id++] = w;
    // A word listed twice keeps its first id (the lists are meant to be disjoint; a test checks).
    for (int i = 0; i < id; ++i) l->ids.emplace(l->words[i], i);
    l->function_words.insert(std::begin(kFunctionWords), std::end(kFunctionWords));
    l->common_words.insert(std::begin(kCommonWords), std::end(kCommonWords));
    return l;
  }();
  return *lookup;
}

}  // namespace

std::span<const std::string_view> Verbs() { return kVerbs; }
std::span<const std::string_view> Adjectives() { return kAdjectives; }
std::span<const std::string_view> Nouns() { return kNouns; }

int VocabularySize() { return static_cast<int>(GetLookup().words.size()); }
std::string_view VocabularyWord(int id) { return GetLookup().words[id]; }
int VerbId(int index) { return index; }
int AdjectiveId(int index) { return static_cast<int>(std::size(kVerbs)) + index; }
int NounId(int index) { return static_cast<int>(std::size(kVerbs) + std::size(kAdjectives)) + index; }

int VocabularyId(std::string_view lowercase_word) {
  const auto& ids = GetLookup().ids;
  auto it = ids.find(lowercase_word);
  return it == ids.end() ? -1 : it->second;
}

bool IsFunctionWord(std::string_view lowercase_word) { return GetLookup().function_words.contains(lowercase_word); }

bool IsCommonWord(std::string_view lowercase_word) { return GetLookup().common_words.contains(lowercase_word); }

}  // namespace noveltygrid::sim
