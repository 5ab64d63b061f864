import { Fragment, createElement } from 'react';
import { parseMarkdown, type Inline } from '@/lib/markdown';

function Inlines({ inlines }: { inlines: Inline[] }) {
  return (
    <>
      {inlines.map((run, i) =>
        run.kind === 'strong' ? <strong key={i}>{run.text}</strong> : run.kind === 'code' ? <code key={i}>{run.text}</code> : <Fragment key={i}>{run.text}</Fragment>,
      )}
    </>
  );
}

/** Renders manual Markdown as React elements (text only, never HTML). */
export function MarkdownView({ source }: { source: string }) {
  return (
    <div className="fd-markdown">
      {parseMarkdown(source).map((block, i) => {
        if (block.kind === 'heading') return createElement(`h${Math.min(block.level + 1, 6)}`, { key: i }, <Inlines inlines={block.inlines} />);
        if (block.kind === 'paragraph')
          return (
            <p key={i}>
              <Inlines inlines={block.inlines} />
            </p>
          );
        const items = block.items.map((item, j) => (
          <li key={j}>
            <Inlines inlines={item} />
          </li>
        ));
        return block.ordered ? <ol key={i}>{items}</ol> : <ul key={i}>{items}</ul>;
      })}
    </div>
  );
}
