// Progressive enhancement only: every page works without this file.
// - [data-copy]: a Copy button for the text of the element it names (the new key)
// - [data-confirm]: asks before submitting a form
// - [data-autosubmit]: sends the customer on to the payment page without a click
// - [data-live="true"] (with an id): while something in it is still changing (a document being
//   indexed, a webhook delivery on its way), the page's own HTML is fetched every two seconds and
//   each such element replaced by its fresh copy, until none says it is live
document.querySelectorAll('[data-copy]').forEach((button) => {
  const source = document.querySelector(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(source.textContent.trim()).then(() => { button.textContent = 'Copied'; });
  });
});
// delegated, so that forms a page puts in later (a knowledge base's refreshed documents) ask too
document.addEventListener('submit', (event) => {
  const form = event.target.closest('form[data-confirm]');
  if (form && !window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
});
document.querySelectorAll('form[data-autosubmit]').forEach((form) => form.submit());

function refreshLive() {
  if (!document.querySelector('[data-live="true"][id]')) return;
  setTimeout(() => {
    fetch(window.location.href, { credentials: 'same-origin' })
      .then((response) => (response.ok ? response.text() : Promise.reject(new Error(String(response.status)))))
      .then((html) => {
        const fresh = new DOMParser().parseFromString(html, 'text/html');
        document.querySelectorAll('[data-live][id]').forEach((element) => {
          const replacement = fresh.getElementById(element.id);
          if (replacement) element.replaceWith(replacement);
        });
      })
      // a failed fetch (the network, a restart) is tried again
      .catch(() => undefined)
      .finally(refreshLive);
  }, 2000);
}
refreshLive();
