// The dashboard's entry point: one socket and one set of stores for the page, three views switched by
// the URL hash (#/spectator, #/trader, #/operator) so each can be linked to directly.
import { h } from './dom.ts';
import { ExchangeSocket, socketUrl, type SocketStatus } from './exchange-socket.ts';
import { MarketDirectory } from './market-directory.ts';
import { MarketFeed } from './market-feed.ts';
import { MessageLog } from './message-log.ts';
import { OperatorSession } from './operator-session.ts';
import { OperatorView } from './operator-view.ts';
import { PracticePanel } from './practice-panel.ts';
import { PublicFeed } from './public-feed.ts';
import { SpectatorView } from './spectator-view.ts';
import { TraderSession } from './trader-session.ts';
import { TraderView } from './trader-view.ts';

type Route = 'spectator' | 'trader' | 'operator';
const ROUTES: readonly { readonly route: Route; readonly label: string }[] = [
  { route: 'spectator', label: 'Markets' },
  { route: 'trader', label: 'Trader' },
  { route: 'operator', label: 'Operator' },
];

function currentRoute(): Route {
  const name = location.hash.replace(/^#\/?/, '').split('/')[0];
  return ROUTES.find((r) => r.route === name)?.route ?? 'spectator';
}

function boot(root: HTMLElement): void {
  const socket = new ExchangeSocket(socketUrl());
  // Spectators watch the conflated public channels; only the trader view follows l3, of the market it trades.
  const publicFeed = new PublicFeed(socket);
  const feed = new MarketFeed(socket);
  const directory = new MarketDirectory(publicFeed);
  const messages = new MessageLog(socket);
  const trader = new TraderSession(socket);
  const operator = new OperatorSession();

  const views: Record<Route, { readonly el: HTMLElement; readonly schedule: () => void }> = {
    spectator: new SpectatorView(directory, publicFeed, messages),
    trader: new TraderView(trader, directory, feed, publicFeed),
    operator: new OperatorView(operator),
  };

  const connection = h('span', { class: 'conn', 'data-testid': 'connection' });
  const showStatus = (status: SocketStatus): void => {
    connection.className = `conn ${status}`;
    connection.dataset['status'] = status;
    connection.textContent = status === 'open' ? `live · ${feed.resyncs + publicFeed.resyncs} resyncs` : status === 'connecting' ? 'connecting…' : 'reconnecting…';
  };
  socket.onStatus(showStatus);
  const refreshStatus = (): void => {
    if (socket.status === 'open') showStatus('open');
  };
  feed.onChange(refreshStatus);
  publicFeed.onChange(refreshStatus);
  showStatus(socket.status);

  const tabs = ROUTES.map(({ route, label }) => h('a', { href: `#/${route}`, class: 'tab', 'data-route': route }, label));
  const main = h('main');
  // A practice exchange shows its play above every view (nothing at all elsewhere).
  const practice = new PracticePanel();
  root.replaceChildren(h('header', null, h('h1', null, 'Competition Exchange'), h('nav', null, tabs), connection), practice.el, main);

  const show = (): void => {
    const route = currentRoute();
    for (const tab of tabs) tab.classList.toggle('active', tab.dataset['route'] === route);
    main.replaceChildren(views[route].el);
    views[route].schedule();
  };
  window.addEventListener('hashchange', show);
  show();

  socket.start();
  directory.start();
  trader.start();
  operator.start();
  void practice.start();
}

const root = document.getElementById('app');
if (root !== null) boot(root);
