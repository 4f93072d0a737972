import { html } from './html';

describe('html', () => {
  it('escapes interpolated text, keeps nested html and lists, drops empty parts', () => {
    const name = `<script>alert("x")</script> & 'co'`;
    const inner = html`<b>${name}</b>`;
    expect(html`<p title="${name}">${inner}${[html`<i>1</i>`, '2']}${null}${false}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;"><b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</b><i>1</i>2</p>',
    );
  });
});
