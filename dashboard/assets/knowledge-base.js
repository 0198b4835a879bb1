// A knowledge base's page, enhanced (it works without this file: the form posts normally and
// the page says to reload while documents are processing):
// - a file dropped on the upload form goes into its file input;
// - a file past the size limit is refused before it is sent;
// - the form is sent by XMLHttpRequest to the same endpoint (with its csrf_token field), with a
//   progress bar; the answer is the page the server redirects to, or the form with its error.
// (dashboard.js refreshes the documents section while a document is processing: data-live.)
const form = document.querySelector('form[data-upload]');
const progress = document.getElementById('upload-progress');

if (form) {
  const input = form.querySelector('input[type=file]');
  form.addEventListener('dragover', (event) => {
    event.preventDefault();
    form.classList.add('dragging');
  });
  form.addEventListener('dragleave', () => form.classList.remove('dragging'));
  form.addEventListener('drop', (event) => {
    event.preventDefault();
    form.classList.remove('dragging');
    if (event.dataTransfer && event.dataTransfer.files.length > 0) input.files = event.dataTransfer.files;
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // a file past the limit is refused here: the server would refuse it before reading it
    const file = input.files[0];
    const maxBytes = Number(form.dataset.maxBytes);
    if (file && maxBytes && file.size > maxBytes) {
      showError(`${file.name} is ${file.size} bytes, larger than the maximum of ${maxBytes} bytes.`);
      return;
    }
    const button = form.querySelector('button[type=submit]');
    const request = new XMLHttpRequest();
    request.open('POST', form.action);
    progress.hidden = false;
    progress.value = 0;
    button.disabled = true;
    request.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) progress.value = Math.round((e.loaded / e.total) * 100);
    });
    request.addEventListener('load', () => {
      // success: the server redirected to the knowledge base's page, which XMLHttpRequest followed
      if (request.status === 200 && request.responseURL) {
        window.location.assign(request.responseURL);
        return;
      }
      const answer = new DOMParser().parseFromString(request.responseText, 'text/html');
      showError(answer.querySelector('[role=alert]')?.textContent || answer.querySelector('main p')?.textContent || `The upload failed (HTTP ${request.status}).`);
      button.disabled = false;
      progress.hidden = true;
    });
    request.addEventListener('error', () => {
      showError('The upload failed: the connection was lost. Try again.');
      button.disabled = false;
      progress.hidden = true;
    });
    request.send(new FormData(form));
  });
}

function showError(message) {
  let alert = document.querySelector('main [role=alert]');
  if (!alert) {
    alert = document.createElement('p');
    alert.className = 'error';
    alert.setAttribute('role', 'alert');
    document.querySelector('main h1').after(alert);
  }
  alert.textContent = message;
}
