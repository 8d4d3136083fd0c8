//! A memory's body as HTML for the workbench (issue 48). Memory text is data: raw HTML in it is
//! shown as text, and a link or image that is not `http(s)`, `mailto` or relative loses its
//! target, so a memory that holds `<script>` or `javascript:` shows as what it says.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag};

/// `markdown` rendered, with raw HTML escaped and unsafe link targets dropped.
pub fn render(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: safe(dest_url), title, id })
        }
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Image { link_type, dest_url: safe(dest_url), title, id })
        }
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// `url` when it is a web address, mail or relative; else nothing.
fn safe(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(s, _)| s).filter(|s| !s.contains(['/', '?', '#']));
    match scheme {
        None | Some("http" | "https" | "mailto") => url,
        Some(_) => CowStr::Borrowed(""),
    }
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn memory_text_is_data() {
        let html = render("Use **Postgres**.\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n");
        assert!(html.contains("<strong>Postgres</strong>"), "{html}");
        assert!(!html.contains("<script") && html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        let html = render("[a](javascript:alert(1)) [b](https://example.com) [c](notes.md)");
        assert!(
            !html.contains("javascript") && html.contains("https://example.com") && html.contains("notes.md"),
            "{html}"
        );
    }
}
