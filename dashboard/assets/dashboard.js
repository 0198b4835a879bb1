// Progressive enhancement only: every page works without this file.
// - [data-copy]: a Copy button for the text of the element it names (the new key)
// - [data-confirm]: asks before submitting a form
// - [data-autosubmit]: sends the customer on to the payment page without a click
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
