package io.github.redissonratelimit.autoconfigure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Every relative link of the user documentation leads somewhere: the file exists and its {@code #anchor} is a
 * heading of that file, by GitHub's rules for heading anchors. Links to other sites are not followed.
 */
class DocumentationLinksTest {

    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s.*)?$");

    private static final Pattern HTML_LINK = Pattern.compile("<a\\s[^>]*href=\"([^\"]+)\"");

    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*(?:name|id)=\"([^\"]+)\"");

    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    private static final Pattern CODE_SPAN = Pattern.compile("`+[^`]*`+");

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyRelativeLinkResolvesToAFileAndAHeading() {
        List<String> failures = new ArrayList<>();
        for (Path file : MarkdownFiles.userDocs()) {
            List<String> lines = MarkdownFiles.lines(file);
            boolean[] fenced = MarkdownFiles.inFence(lines);
            for (int i = 0; i < lines.size(); i++) {
                if (fenced[i]) {
                    continue;
                }
                for (String link : links(lines.get(i))) {
                    String problem = problem(file, link);
                    if (problem != null) {
                        failures.add(MarkdownFiles.name(file) + ":" + (i + 1) + ": (" + link + ") " + problem);
                    }
                }
            }
        }
        assertThat(failures).as("broken links").isEmpty();
    }

    @Test
    void headingAnchorsFollowGitHubRules() {
        assertThat(slug("2. Add the starter")).isEqualTo("2-add-the-starter");
        assertThat(slug("Time: whose clock decides the window")).isEqualTo("time-whose-clock-decides-the-window");
        assertThat(slug("`@RateLimit` on a *method*")).isEqualTo("ratelimit-on-a-method");
        assertThat(slug("The limits of one call: one script call")).isEqualTo("the-limits-of-one-call-one-script-call");
        assertThat(slug("key_style and key-prefix")).isEqualTo("key_style-and-key-prefix");
        assertThat(slug("See [limits](limits.md) too")).isEqualTo("see-limits-too");
        assertThat(headingAnchors(List.of("# Tiers", "## Tiers", "```", "# Not a heading", "```", "## Tiers")))
                .containsExactly("tiers", "tiers-1", "tiers-2");
    }

    private static List<String> links(String line) {
        String text = CODE_SPAN.matcher(line).replaceAll("");
        List<String> links = new ArrayList<>();
        for (Pattern pattern : List.of(INLINE_LINK, REFERENCE_DEFINITION, HTML_LINK)) {
            Matcher matcher = pattern.matcher(text);
            while (matcher.find()) {
                links.add(matcher.group(1));
            }
        }
        return links;
    }

    /** Why {@code link}, written in {@code file}, leads nowhere; null when it resolves or goes to another site. */
    private String problem(Path file, String link) {
        if (link.isEmpty() || link.matches("(?i)^[a-z][a-z0-9+.-]*:.*")) {
            return link.isEmpty() ? "empty link" : null;
        }
        int hash = link.indexOf('#');
        String path = hash < 0 ? link : link.substring(0, hash);
        Path target = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
        if (!Files.exists(target)) {
            return "no file " + MarkdownFiles.name(target);
        }
        if (hash < 0) {
            return null;
        }
        String anchor = link.substring(hash + 1);
        if (!target.getFileName().toString().endsWith(".md") || Files.isDirectory(target)) {
            return anchor.matches("L\\d+(-L\\d+)?") ? null : "anchor #" + anchor + " into a file that has no headings";
        }
        Set<String> known = anchors.computeIfAbsent(target, md -> headingAnchors(MarkdownFiles.lines(md)));
        return known.contains(anchor) ? null : "no heading #" + anchor + " in " + MarkdownFiles.name(target);
    }

    private static Set<String> headingAnchors(List<String> lines) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean[] fenced = MarkdownFiles.inFence(lines);
        for (int i = 0; i < lines.size(); i++) {
            if (fenced[i]) {
                continue;
            }
            Matcher html = HTML_ANCHOR.matcher(lines.get(i));
            while (html.find()) {
                anchors.add(html.group(1));
            }
            Matcher heading = HEADING.matcher(lines.get(i));
            if (heading.matches()) {
                String slug = slug(heading.group(2));
                int count = seen.merge(slug, 1, Integer::sum);
                anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
            }
        }
        return anchors;
    }

    /** GitHub's anchor of a heading: its text lower case, punctuation but '-' and '_' removed, spaces as '-'. */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "").strip();
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "").replace(' ', '-');
    }
}
