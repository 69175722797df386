set terminal pngcairo size 420,400 font 'sans,9'
set output 'tps-hot-lwlock.png'
set datafile missing 'NaN'
set multiplot layout 1,1 title "hot-lwlock: tps per round (round 0 = warm-up, discarded)"
set xlabel 'round'
set ylabel 'tps'
set grid
set key bottom right
set xrange [-0.5:6.5]
set xtics 1
set yrange [0:*]
set title 'clients = 4'
plot 'tps-hot-lwlock.dat' index 0 using 1:2 with linespoints pt 7 title "A patched:off", '' index 0 using 1:3 with linespoints pt 5 title "B patched:measure"
unset multiplot
