// Text helpers with the exact semantics the reference protocol relies on.
#ifndef NOVELTYGRID_COMMON_TEXT_H_
#define NOVELTYGRID_COMMON_TEXT_H_

#include <optional>
#include <string>
#include <string_view>

namespace noveltygrid {

// Python's str.strip(): removes leading and trailing whitespace (ASCII whitespace and the
// Unicode separators \x1c-\x1f, U+0085, U+00A0 are treated as Python does for the ASCII range only).
std::string_view StripWhitespace(std::string_view text);

// The content of the LAST <tag>...</tag> match (the body may span lines), stripped; nullopt when
// there is none. Matching is non-greedy, like re.findall(r"<tag>(.*?)</tag>", text, re.DOTALL).
std::optional<std::string> ExtractLastTag(std::string_view text, std::string_view tag);

// Python int() of a string: optional surrounding whitespace, optional sign, decimal digits with single
// underscores between digits. "75" -> 75, " 75\n" -> 75, "75.0" -> nullopt, "" -> nullopt.
std::optional<long long> ParsePythonInt(std::string_view text);

// Returns `text` as valid UTF-8: every ill-formed sequence becomes U+FFFD.
std::string SanitizeUtf8(std::string_view text);

// The first `max_words` whitespace-separated words of `text`, as written up to the end of the last
// one (everything when max_words <= 0 or the text is shorter).
std::string TruncateWords(std::string_view text, int max_words);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_TEXT_H_
