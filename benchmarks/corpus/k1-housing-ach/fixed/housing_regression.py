import numpy
import pandas
from keras.models import Sequential
from keras.layers import Dense
from keras.regularizers import l2
from keras.optimizers import Adam
from sklearn.preprocessing import StandardScaler

# load dataset
dataframe = pandas.read_csv("housing.csv", delim_whitespace=True, header=None)
dataset = dataframe.values
X = dataset[:, 0:13]
Y = dataset[:, 13]

scaler = StandardScaler()
X = scaler.fit_transform(X)

seed = 7
numpy.random.seed(seed)

model = Sequential()
model.add(Dense(output_dim=64, input_dim=13, init='normal', activation='relu'))
model.add(Dense(output_dim=32, init='normal', activation='relu'))
model.add(Dense(output_dim=1, init='normal'))

model.compile(loss='mean_squared_error', optimizer=Adam(lr=0.001))
history = model.fit(X, Y, nb_epoch=200, batch_size=16, validation_split=0.2, verbose=0)

print("final training loss: %.3f" % history.history['loss'][-1])
print("final validation loss: %.3f" % history.history['val_loss'][-1])
