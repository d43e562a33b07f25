import { render } from 'preact';
import { Console } from './app.tsx';
import './styles.css';

render(<Console />, document.getElementById('app')!);
