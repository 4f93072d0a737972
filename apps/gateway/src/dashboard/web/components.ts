import { html, SafeHtml } from '../../checkout/page/html';
import type { PageRequest } from '../session/dashboard-auth';

/** A secret shown once, with a copy button (works without JavaScript too: the text is selectable). */
export function secretOnce(page: Pick<PageRequest, 'nonce'>, id: string, secret: string, copyLabel: string, copiedLabel: string): SafeHtml {
  return html`<code class="secret" id="${id}" data-secret>${secret}</code>
<div class="actions"><button type="button" class="secondary" data-copy="${id}" data-copied="${copiedLabel}">${copyLabel}</button></div>
<script nonce="${page.nonce}">${COPY_SCRIPT}</script>`;
}

// A constant of this file (raw text in <script> is not escaped): copies the secret named by the button.
const COPY_SCRIPT = new SafeHtml(
  "document.querySelectorAll('[data-copy]').forEach(function(b){b.addEventListener('click',function(){var t=document.getElementById(b.getAttribute('data-copy')).textContent;navigator.clipboard.writeText(t).then(function(){b.textContent=b.getAttribute('data-copied')})})})",
);
