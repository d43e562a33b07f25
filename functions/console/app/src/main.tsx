import { render } from 'preact';

function Console() {
  return <main>Platform console</main>;
}

render(<Console />, document.getElementById('app')!);
