/**
 * The event editor's script (served bundled and minified, admin.script.ts): it only improves a form that works
 * without it. Venue, organizer and tag fields become type-ahead pickers (the ARIA combobox pattern) over the
 * editor's own search; the Repeats builder previews its dates as they change; an image upload shows its progress.
 * Every field keeps its name and label and still posts what it posts without the script.
 */

const PICK_DELAY_MS = 150;
const PREVIEW_DELAY_MS = 400;

interface Texts {
  readonly suggestions: string;
  readonly oneResult: string;
  readonly results: string;
  readonly noResults: string;
  readonly uploading: string;
}

interface Choice {
  readonly id: number;
  readonly name: string;
}

/** A run of calls collapsed into the last one, `ms` after it. */
function debounced(ms: number, run: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  };
}

/** The one live region of the pickers: what a screen reader hears as the suggestions change. */
function announcer(form: HTMLFormElement): (text: string) => void {
  const region = document.createElement('p');
  region.className = 'hidden';
  region.setAttribute('role', 'status');
  form.append(region);
  return (text) => {
    region.textContent = text;
  };
}

/**
 * A text field that offers matching names below it as the person types: arrow keys move through them, Enter
 * chooses, Escape closes. With `several`, the field holds a comma-separated list and the last name is completed.
 */
function picker(input: HTMLInputElement, source: string, texts: Texts, announce: (text: string) => void, several: boolean): void {
  const list = document.createElement('ul');
  list.id = `${input.id}-suggestions`;
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-label', texts.suggestions);
  list.className = 'suggestions';
  list.hidden = true;
  input.removeAttribute('list');
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-expanded', 'false');
  input.setAttribute('aria-controls', list.id);
  input.after(list);
  input.parentElement?.classList.add('picker');

  let choices: readonly Choice[] = [];
  let active = -1;
  let request: AbortController | undefined;
  const typed = () => (several ? (input.value.split(',').pop() ?? '') : input.value).trim();

  const close = () => {
    list.hidden = true;
    active = -1;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  };
  const highlight = (index: number) => {
    active = index;
    list.querySelectorAll('[role="option"]').forEach((option, at) => option.setAttribute('aria-selected', String(at === index)));
    const option = list.children[index];
    if (option === undefined) input.removeAttribute('aria-activedescendant');
    else {
      input.setAttribute('aria-activedescendant', option.id);
      option.scrollIntoView({ block: 'nearest' });
    }
  };
  const choose = (choice: Choice) => {
    if (several) {
      const kept = input.value
        .split(',')
        .slice(0, -1)
        .map((name) => name.trim())
        .filter((name) => name !== '');
      input.value = `${[...kept, choice.name].join(', ')}, `;
    } else input.value = choice.name;
    close();
    input.focus();
  };
  const show = (found: readonly Choice[]) => {
    choices = found;
    list.replaceChildren(
      ...found.map((choice, index) => {
        const option = document.createElement('li');
        option.id = `${list.id}-${index}`;
        option.setAttribute('role', 'option');
        option.setAttribute('aria-selected', 'false');
        option.textContent = choice.name;
        // Pressed, not clicked: the field keeps the focus, and the choice is made before it would blur.
        option.addEventListener('mousedown', (event) => {
          event.preventDefault();
          choose(choice);
        });
        return option;
      }),
    );
    active = -1;
    input.removeAttribute('aria-activedescendant');
    list.hidden = found.length === 0;
    input.setAttribute('aria-expanded', String(found.length > 0));
    announce(
      found.length === 0 ? texts.noResults : found.length === 1 ? texts.oneResult : texts.results.replace('{n}', String(found.length)),
    );
  };
  const search = debounced(PICK_DELAY_MS, () => {
    const words = typed();
    request?.abort();
    if (words === '') return close();
    request = new AbortController();
    fetch(`${source}?search=${encodeURIComponent(words)}`, { signal: request.signal, headers: { accept: 'application/json' } })
      .then((answer) => (answer.ok ? (answer.json() as Promise<{ items: Choice[] }>) : { items: [] }))
      // A name already typed in full is no suggestion.
      .then(({ items }) => {
        if (document.activeElement === input) show(items.filter((item) => item.name.toLocaleLowerCase() !== words.toLocaleLowerCase()));
      })
      .catch(() => undefined);
  });

  input.addEventListener('input', search);
  input.addEventListener('blur', close);
  input.addEventListener('keydown', (event) => {
    const open = !list.hidden;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) return search();
      // Round the list, from the last to the first and back; up from the field is the last.
      const down = event.key === 'ArrowDown';
      const from = active < 0 && !down ? 0 : active;
      highlight((from + (down ? 1 : choices.length - 1)) % choices.length);
    } else if (event.key === 'Enter' && open && active >= 0) {
      // Choosing, not saving: Enter saves the form only when no suggestion is highlighted.
      event.preventDefault();
      const choice = choices[active];
      if (choice !== undefined) choose(choice);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      close();
    }
  });
}

/** The Repeats builder's next dates, asked of the editor as they change, shown where "Preview dates" shows them. */
function livePreview(form: HTMLFormElement, source: string, fields: readonly string[]): void {
  const region = form.querySelector<HTMLElement>('#preview-dates');
  if (region === null) return;
  let request: AbortController | undefined;
  const refresh = debounced(PREVIEW_DELAY_MS, () => {
    const data = new FormData(form);
    const query = new URLSearchParams();
    for (const name of fields) for (const value of data.getAll(name)) if (typeof value === 'string') query.append(name, value);
    request?.abort();
    request = new AbortController();
    fetch(`${source}?${query.toString()}`, { signal: request.signal, headers: { accept: 'application/json' } })
      .then((answer) => answer.json() as Promise<{ heading?: string; dates?: string[]; message?: string; error?: string }>)
      .then(({ heading, dates, message, error }) => {
        const paragraph = document.createElement('p');
        paragraph.textContent = error ?? message ?? heading ?? '';
        if (error !== undefined) paragraph.className = 'error';
        const items = (dates ?? []).map((date) => {
          const item = document.createElement('li');
          const time = document.createElement('time');
          time.dateTime = date.replace(' ', 'T');
          time.textContent = date;
          item.append(time);
          return item;
        });
        const list = document.createElement('ul');
        list.append(...items);
        region.replaceChildren(paragraph, ...(items.length > 0 ? [list] : []));
      })
      .catch(() => undefined);
  });
  form.addEventListener('change', (event) => {
    const name = (event.target as HTMLInputElement | null)?.name ?? '';
    if (fields.includes(name)) refresh();
  });
}

/**
 * A form with an image chosen is sent by XHR, its upload's progress shown; the answer then replaces the page as a
 * plain submit's would. If the request cannot be made, the form is submitted as it is without the script.
 */
function uploadProgress(form: HTMLFormElement, texts: Texts): void {
  const file = form.querySelector<HTMLInputElement>('input[type="file"]');
  if (file === null) return;
  let plain = false;
  form.addEventListener('submit', (event) => {
    if (plain || file.files === null || file.files.length === 0) return;
    event.preventDefault();
    const submitter = event.submitter;
    const status = document.createElement('p');
    status.setAttribute('role', 'status');
    status.id = 'upload-status';
    status.textContent = texts.uploading;
    const bar = document.createElement('progress');
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute('aria-labelledby', status.id);
    file.parentElement?.after(status, bar);
    const request = new XMLHttpRequest();
    request.open('POST', form.action);
    request.upload.addEventListener('progress', (progress) => {
      if (progress.lengthComputable) bar.value = Math.round((progress.loaded / progress.total) * 100);
    });
    request.addEventListener('load', () => {
      // Saved: the editor answered with the event's page (a redirect the request followed). Else it is the form again.
      if (request.responseURL !== '' && request.responseURL !== form.action) {
        window.location.assign(request.responseURL);
        return;
      }
      const next = new DOMParser().parseFromString(request.responseText, 'text/html');
      document.title = next.title;
      document.body.replaceWith(document.adoptNode(next.body));
      enhance();
      document.querySelector<HTMLElement>('#summary')?.focus();
    });
    request.addEventListener('error', () => {
      status.remove();
      bar.remove();
      plain = true;
      form.requestSubmit(submitter instanceof HTMLButtonElement ? submitter : null);
    });
    request.send(new FormData(form, submitter));
  });
}

function enhance(): void {
  const form = document.querySelector<HTMLFormElement>('form.editor[data-choices]');
  if (form === null) return;
  const texts = JSON.parse(form.dataset.texts ?? '{}') as Texts;
  const choices = form.dataset.choices ?? '';
  const announce = announcer(form);
  for (const input of form.querySelectorAll<HTMLInputElement>('#venue, input[name="organizers"]')) {
    picker(input, `${choices}/${input.id === 'venue' ? 'venues' : 'organizers'}`, texts, announce, false);
  }
  const tags = form.querySelector<HTMLInputElement>('#tags');
  if (tags !== null) picker(tags, `${choices}/tags`, texts, announce, true);
  livePreview(form, form.dataset.preview ?? '', (form.dataset.previewFields ?? '').split(' '));
  uploadProgress(form, texts);
}

enhance();
